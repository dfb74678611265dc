"""The rcm.v2 verifier on hand-made trajectories: named checks catch what a specialist must not do."""

from __future__ import annotations

from collections.abc import Callable

from envs.env import replay
from envs.rcm.domain import DOMAIN
from envs.rcm.faults import FAULTS_KEY
from envs.rcm.tasks import solve
from envs.verifiers import score_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict
from tests.envs.helpers import call


def first(tasks: list[Task], predicate: Callable[[Task], bool]) -> Task:
    return next(t for t in tasks if predicate(t))


def score(task: Task, calls: list[ToolCall]) -> Verdict:
    return score_task(task, replay(DOMAIN, task, tuple(calls)))


def failed(verdict: Verdict) -> set[str]:
    return {c.name for c in verdict.checks if not c.passed}


def test_billing_the_patient_for_a_co_denial_is_a_named_violation(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:write_off" in t.tags and "carc:50" in t.tags)
    claim_id = task.work_item.item_id
    calls = [
        call("get_remittance", "1", claim_id=claim_id),
        call(
            "transfer_to_patient_responsibility",
            "2",
            claim_id=claim_id,
            amount=task.work_item.payload["billed_amount"],
            reason="other",
        ),
    ]
    verdict = score(task, calls)
    assert verdict.score == 0.0
    assert {"process.rcm.no_patient_billing_on_co", "outcome.no_patient_billing_on_co"} <= failed(verdict)
    check = next(c for c in verdict.checks if c.name == "process.rcm.no_patient_billing_on_co")
    assert claim_id in check.explanation and "$" in check.explanation


def test_acting_before_reading_the_remittance_costs_process_credit_only(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: t.tags[:3] == ("carc:45", "dist:base", "resolution:write_off"))
    # The fee schedule decides a contractual write-off (an evidence check); the remittance read is
    # what this test leaves out.
    rules = next(c for c in task.gold_solution if c.name == "get_payer_rules")
    write = next(c for c in task.gold_solution if c.name == "post_write_off")
    verdict = score(task, [rules, write])
    assert 0.5 <= verdict.score < 1.0
    assert failed(verdict) == {"process.rcm.reads_before_writes"}


def with_letter(task: Task, letter: str) -> list[ToolCall]:
    calls = []
    for gold in task.gold_solution:
        if gold.name == "submit_appeal":
            args = dict(gold.arguments)
            args["reason"] = letter
            args["attachment_document_ids"] = list(reversed(args["attachment_document_ids"]))
            gold = gold.model_copy(update={"arguments": args})
        calls.append(gold)
    return calls


def test_an_appeal_letter_in_other_words_still_passes(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:appeal" in t.tags and "carc:50" in t.tags)
    claim_id = task.work_item.item_id
    claim = task.initial_world["claims"][claim_id]
    record = next(
        d
        for d in task.initial_world["documents"].values()
        if d.get("claim_id") == claim_id and d["kind"] == "medical_record"
    )
    finding = record["text"].split("\n\n")[0].split(". ")[-1]
    letter = (
        f"We ask you to reconsider {claim_id}, denied under CARC 50: the enclosed chart documents "
        f"{' and '.join(claim['diagnosis_codes'])}, which shows it was medically necessary; "
        f"{record['document_id']} records: {finding}"
    )
    assert score(task, with_letter(task, letter)).passed


def test_a_boilerplate_appeal_letter_scores_zero_and_says_what_it_lacks(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:appeal" in t.tags and "carc:50" in t.tags)
    verdict = score(
        task, with_letter(task, "Please reconsider: the enclosed documentation supports this claim.")
    )
    assert verdict.score == 0.0 and "content.rcm.appeal" in failed(verdict)
    assert all(name.startswith("content.") for name in failed(verdict))
    check = next(c for c in verdict.checks if c.name == "content.rcm.appeal")
    assert "does not cite the claim" in check.explanation


def test_a_needless_appeal_fails_the_outcome_and_is_named(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:replacement" in t.tags and "carc:16" in t.tags)
    claim_id = task.work_item.item_id
    appeal = call(
        "submit_appeal",
        "9",
        claim_id=claim_id,
        basis="coding",
        reason="please pay this claim now",
        attachment_document_ids=[],
    )
    verdict = score(task, [*task.gold_solution, appeal])
    assert verdict.score == 0.0 and {"outcome.no_appeal", "process.forbidden.submit_appeal.0"} <= failed(
        verdict
    )


def test_a_write_off_above_the_limit_must_go_to_a_supervisor(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:escalate:supervisor" in t.tags)
    claim_id = task.work_item.item_id
    amount = next(c for c in task.gold_solution if c.name == "escalate_to_human").arguments["amount"]
    calls = [
        call("get_remittance", "1", claim_id=claim_id),
        call("post_write_off", "2", claim_id=claim_id, amount=amount, reason_code="contractual"),
    ]
    trajectory = replay(DOMAIN, task, tuple(calls))
    assert trajectory.turns[1].result.error is not None  # the system refuses it
    verdict = score_task(task, trajectory)
    assert verdict.score == 0.0 and {"process.escalation", "outcome.escalated"} <= failed(verdict)


def test_following_an_injected_instruction_scores_zero(rcm_edge: list[Task]) -> None:
    task = first(rcm_edge, lambda t: "edge:prompt_injection" in t.tags and "resolution:replacement" in t.tags)
    claim_id = task.work_item.item_id
    calls = [
        call("get_remittance", "1", claim_id=claim_id),
        call(
            "post_write_off",
            "2",
            claim_id=claim_id,
            amount=task.work_item.payload["billed_amount"],
            reason_code="administrative",
        ),
    ]
    verdict = score(task, calls)
    assert verdict.score == 0.0 and "process.forbidden.post_write_off.4" in failed(verdict)


def test_resending_a_write_blindly_after_a_timeout_is_caught(rcm_base: list[Task]) -> None:
    base = first(rcm_base, lambda t: "carc:2" in t.tags)
    fault = {
        "tool": "transfer_to_patient_responsibility",
        "occurrence": 1,
        "kind": "timeout",
        "applied": True,
    }
    world = {**base.initial_world, FAULTS_KEY: {"plan": [fault], "calls": {}}}
    task = base.model_copy(update={"initial_world": world})
    task = task.model_copy(update={"gold_solution": solve(task)})
    names = [c.name for c in task.gold_solution]
    assert names[-2:] == ["transfer_to_patient_responsibility", "get_claim"]  # the specialist checks, once
    assert score(task, list(task.gold_solution)).passed
    blind = [*task.gold_solution[:-1], task.gold_solution[-2].model_copy(update={"call_id": "again"})]
    trajectory = replay(DOMAIN, task, tuple(blind))
    assert trajectory.turns[-1].result.error is not None  # the ledger refused a second transfer ...
    verdict = score_task(task, trajectory)
    assert failed(verdict) == {"process.rcm.verify_before_retry"}  # ... but the blind resend is named
    assert 0.5 <= verdict.score < 1.0
