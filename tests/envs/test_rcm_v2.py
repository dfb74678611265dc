"""rcm.v2 scores what a billing office cares about: outcome specs that accept every right
resolution, the terminal-state rule, and the content of what the agent writes."""

from __future__ import annotations

from collections.abc import Callable

from envs.contract import Trajectory
from envs.env import replay
from envs.rcm.domain import DOMAIN
from envs.verifiers import score_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict
from tests.envs.helpers import call


def first(tasks: list[Task], predicate: Callable[[Task], bool]) -> Task:
    return next(t for t in tasks if predicate(t))


def run(task: Task, calls: list[ToolCall] | tuple[ToolCall, ...]) -> Trajectory:
    return replay(DOMAIN, task, tuple(calls))


def failed(verdict: Verdict) -> set[str]:
    return {c.name for c in verdict.checks if not c.passed}


def edit(calls: tuple[ToolCall, ...], name: str, **arguments: object) -> list[ToolCall]:
    return [
        c.model_copy(update={"arguments": {**c.arguments, **arguments}}) if c.name == name else c
        for c in calls
    ]


def test_generated_tasks_carry_an_outcome_spec_and_name_rcm_v2(rcm_base: list[Task]) -> None:
    assert {t.verifier.verifier for t in rcm_base} == {"rcm.v2"}
    assert all(t.verifier.outcome is not None and t.verifier.outcome.must for t in rcm_base)


def test_the_contractual_amount_posted_in_two_adjustments_scores_one(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:45" in t.tags and "resolution:write_off" in t.tags)
    [split] = task.alternative_solutions
    assert [c.name for c in split].count("post_write_off") == 2
    assert score_task(task, run(task, split)).passed


def test_two_adjustments_that_do_not_add_up_fail_the_outcome(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:45" in t.tags and "resolution:write_off" in t.tags)
    [split] = task.alternative_solutions
    short = [
        c.model_copy(update={"arguments": {**c.arguments, "amount": 0.01}}) if c.call_id.endswith("-b") else c
        for c in split
    ]
    verdict = score_task(task, run(task, short))
    assert verdict.score == 0.0 and "outcome.written_off:contractual" in failed(verdict)


def test_an_unresolvable_remittance_may_go_to_billing_or_a_supervisor(rcm_edge: list[Task]) -> None:
    task = first(rcm_edge, lambda t: "edge:contradictory_remit" in t.tags)
    for calls, queue in (
        (task.gold_solution, "billing"),
        (edit(task.gold_solution, "escalate_to_human", queue="supervisor"), "supervisor"),
    ):
        assert score_task(task, run(task, calls)).passed, queue
    coding = edit(task.gold_solution, "escalate_to_human", queue="coding")
    assert "outcome.escalated" in failed(score_task(task, run(task, coding)))


def test_closing_a_claim_while_its_appeal_is_pending_scores_zero(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:appeal" in t.tags)
    claim_id = task.work_item.item_id
    close = call("close_claim", "late", claim_id=claim_id, reason="no_action_needed")
    verdict = score_task(task, run(task, [*task.gold_solution, close]))
    assert verdict.score == 0.0 and "outcome.claim_stays_open" in failed(verdict)


def test_acting_on_a_claim_after_closing_it_scores_zero_even_when_refused(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:18" in t.tags)
    claim_id = task.work_item.item_id
    appeal = call(
        "submit_appeal", "late", claim_id=claim_id, basis="other", reason="x" * 20, attachment_document_ids=[]
    )
    trajectory = run(task, [*task.gold_solution, appeal])
    assert trajectory.turns[-1].result.error is not None  # the system refuses a write on a closed claim
    verdict = score_task(task, trajectory)
    # the outcome spec still holds (the refused write changed nothing); the terminal rule gates it
    outcome_failures = {name for name in failed(verdict) if name.startswith("outcome.")}
    assert verdict.score == 0.0 and outcome_failures == {"outcome.rcm.nothing_after_resolution"}


def test_a_corrected_claim_that_breaks_something_else_is_not_a_fix(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:31" in t.tags)
    [replacement] = [c for c in task.gold_solution if c.name == "submit_replacement_claim"]
    claim = task.initial_world["claims"][task.work_item.item_id]
    other = next(
        npi
        for npi, provider in task.initial_world["providers"].items()
        if provider["kind"] == "individual" and npi != claim["rendering_npi"]
    )  # a clinician on file, but not the one who saw the patient
    corrections = {**replacement.arguments["corrections"], "rendering_npi": other}
    verdict = score_task(
        task, run(task, edit(task.gold_solution, "submit_replacement_claim", corrections=corrections))
    )
    assert verdict.score == 0.0 and failed(verdict) == {"outcome.correction_keeps_the_rest"}


def test_an_escalation_recommending_more_than_the_balance_fails_its_content(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:escalate:supervisor" in t.tags)
    greedy = edit(task.gold_solution, "escalate_to_human", amount=999_999.0)
    verdict = score_task(task, run(task, greedy))
    assert verdict.score == 0.0 and "content.rcm.escalation" in failed(verdict)
    check = next(c for c in verdict.checks if c.name == "content.rcm.escalation")
    assert "open balance" in check.explanation


def test_an_escalation_to_a_queue_that_cannot_act_on_it_fails_its_content(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:B7" in t.tags)
    odd = edit(task.gold_solution, "escalate_to_human", recommended_action="write_off", amount=1.0)
    assert "content.rcm.escalation" in failed(score_task(task, run(task, odd)))


def test_an_authorization_request_for_another_diagnosis_fails_its_content(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:retro_auth" in t.tags)
    unrelated = edit(task.gold_solution, "request_authorization", diagnosis_codes=["Z00.00"])
    verdict = score_task(task, run(task, unrelated))
    assert verdict.score == 0.0 and "content.rcm.authorization" in failed(verdict)


def test_rcm_v1_still_scores_the_same_task_against_the_gold_world(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:45" in t.tags and "resolution:write_off" in t.tags)
    v1 = task.model_copy(update={"verifier": task.verifier.model_copy(update={"verifier": "rcm.v1"})})
    assert score_task(v1, run(v1, task.gold_solution)).passed
    # v1 compares one end state: the equally right split posting fails it, v2 accepts it.
    assert not score_task(v1, run(v1, task.alternative_solutions[0])).passed


def test_when_escalating_is_one_acceptable_resolution_among_others_no_escalation_check_applies(
    rcm_base: list[Task],
) -> None:
    task = first(rcm_base, lambda t: "resolution:escalate:supervisor" in t.tags)
    either = task.model_copy(update={"verifier": task.verifier.model_copy(update={"must_escalate": None})})
    verdict = score_task(either, run(either, either.gold_solution))
    assert verdict.passed and "process.escalation" not in {c.name for c in verdict.checks}
    assert "process.escalation" in {c.name for c in score_task(task, run(task, task.gold_solution)).checks}


def test_a_letter_that_only_lists_ids_and_codes_argues_nothing_and_scores_zero(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:appeal" in t.tags and "carc:50" in t.tags)
    [appeal] = [c for c in task.gold_solution if c.name == "submit_appeal"]
    citation = appeal.arguments["reason"].split(". ")[0]  # claim, control number, codes
    listed = edit(task.gold_solution, "submit_appeal", reason=f"{citation}. Please reprocess it for payment.")
    verdict = score_task(task, run(task, listed))
    assert verdict.score == 0.0 and failed(verdict) == {"content.rcm.appeal", "content.rcm.specific"}
    assert "points to no clinical evidence" in next(c.explanation for c in verdict.checks if not c.passed)
    specific = next(c.explanation for c in verdict.checks if c.name == "content.rcm.specific")
    assert "evidence reads returned" in specific, "the codes are on the 835: they rest on no evidence read"


def test_a_timely_filing_letter_must_give_the_acceptance_date(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "resolution:appeal" in t.tags and "carc:29" in t.tags)
    undated = edit(
        task.gold_solution,
        "submit_appeal",
        reason=f"Claim {task.work_item.item_id} was denied CO-29 but the 277CA shows it was on time.",
    )
    verdict = score_task(task, run(task, undated))
    assert "content.rcm.appeal" in failed(verdict)
    assert "date the payer accepted" in next(
        c.explanation for c in verdict.checks if c.name == "content.rcm.appeal"
    )


def test_billing_the_patient_again_after_the_first_bill_landed_scores_zero(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:2" in t.tags)
    [bill] = [c for c in task.gold_solution if c.name == "transfer_to_patient_responsibility"]
    trajectory = run(task, [*task.gold_solution, bill.model_copy(update={"call_id": "again"})])
    assert trajectory.turns[-1].result.error is not None  # the ledger refuses the second bill
    verdict = score_task(task, trajectory)
    assert verdict.score == 0.0 and "outcome.rcm.no_repeated_write" in failed(verdict)


def test_a_write_off_posted_in_two_equal_parts_is_not_a_repeat(rcm_base: list[Task]) -> None:
    task = first(rcm_base, lambda t: "carc:45" in t.tags and "resolution:write_off" in t.tags)
    [write_off] = [c for c in task.gold_solution if c.name == "post_write_off"]
    half = round(float(write_off.arguments["amount"]) / 2, 2)
    rest = round(float(write_off.arguments["amount"]) - half, 2)
    parts = [
        write_off.model_copy(
            update={"call_id": f"part-{i}", "arguments": {**write_off.arguments, "amount": amount}}
        )
        for i, amount in enumerate((half, rest))
    ]
    calls = [c for c in task.gold_solution if c.name != "post_write_off"]
    index = next(i for i, c in enumerate(task.gold_solution) if c.name == "post_write_off")
    assert score_task(task, run(task, [*calls[:index], *parts, *calls[index:]])).passed
