"""credit.v1: the expert set as its authors judged it, the process, terminal and content rules,
and the adversarial bars (every outcome-changing mutant rejected, no exploit above doing nothing)."""

from __future__ import annotations

from typing import Any

import envs.credit  # noqa: F401 - registers the domain, the verifier and the task sets
from envs.adversarial.battery import exploit_report
from envs.adversarial.mutation import mutation_report
from envs.contract import Trajectory, Turn
from envs.credit.expert import load_expert_cases
from envs.credit.tasks import generate_base, generate_edge
from envs.domain import DOMAINS
from envs.env import replay
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task
from schemas.tools import ToolCall, ToolOutcome, ToolResult
from schemas.verdicts import Verdict

VERIFIER = VERIFIERS.get("credit.v1")


def _score(task: Task, calls: tuple[ToolCall, ...]) -> Verdict:
    return VERIFIER.score(task, replay(DOMAINS.get("credit"), task, calls))


def _failed(verdict: Verdict) -> set[str]:
    return {c.name for c in verdict.checks if not c.passed}


def _case(case_id: str) -> Any:
    return next(c for c in load_expert_cases() if c.id == case_id)


def test_the_expert_set_has_twenty_cases_and_is_judged_as_its_authors_judged_it() -> None:
    cases = load_expert_cases()
    assert len(cases) >= 20 and sum(len(c.golds) > 1 for c in cases) >= 3
    for case in cases:
        task = case.task()
        for gold in case.golds:
            assert _score(task, gold.tool_calls()).passed, (case.id, gold.name)
        for wrong in case.wrong_moves:
            assert not _score(task, wrong.tool_calls()).passed, (case.id, wrong.name)


def test_a_memo_without_the_covenant_headroom_fails_the_content_check() -> None:
    case = _case("x01-approve")
    wrong = next(m for m in case.wrong_moves if m.name == "memo_without_headroom")
    verdict = _score(case.task(), wrong.tool_calls())
    assert "content.credit.memo" in _failed(verdict) and verdict.score == 0.0


def test_deciding_on_restated_figures_before_requesting_fails_the_process_rule() -> None:
    case = _case("x08-restated-delivered")
    wrong = next(m for m in case.wrong_moves if m.name == "approve_without_asking")
    assert "process.credit.request_before_deciding" in _failed(_score(case.task(), wrong.tool_calls()))


def test_a_write_after_the_decision_fails_the_terminal_rule() -> None:
    case = _case("x01-approve")
    gold = case.golds[0].tool_calls()
    late = ToolCall(call_id="late", name="request_information",
                    arguments={"package_id": "PKG-X01", "items": ["customer_contracts"], "message": "Customer contracts please."})  # fmt: skip
    task = case.task()
    # The environment ends the episode at the decision; a trajectory that kept going is judged as recorded.
    run = replay(DOMAINS.get("credit"), task, gold)
    extra = Turn(call=late, result=ToolResult(call_id="late", name=late.name, outcome=ToolOutcome.FAILED,
                                              error={"kind": "domain", "message": "package closed"}))  # fmt: skip
    verdict = VERIFIER.score(
        task, Trajectory.model_validate({**run.model_dump(), "turns": [*run.turns, extra]})
    )
    assert "outcome.credit.nothing_after_decision" in _failed(verdict)


def test_every_outcome_changing_mutant_is_rejected_and_no_exploit_beats_doing_nothing() -> None:
    tasks = [*generate_base(0, 1), *generate_edge(0, 1), *(c.task() for c in load_expert_cases()[:6])]
    mutation = mutation_report(tasks, ["credit.v1"])
    overall = mutation.verifiers[0].overall
    assert overall.outcome_changing > 100 and overall.score == 1.0, mutation.survivors[:3]
    exploits = exploit_report(tasks, verifiers=["credit.v1"])
    assert exploits.verifiers[0].fooled_tasks == 0, exploits.wins[:3]


def _with_memo(case_id: str, memo: str) -> tuple[ToolCall, ...]:
    calls = _case(case_id).golds[0].tool_calls()
    last = calls[-1]
    return (*calls[:-1], last.model_copy(update={"arguments": {**last.arguments, "memo": memo}}))


def test_a_memo_in_the_analysts_own_words_passes_the_content_check() -> None:
    memo = (
        "We recommend approval. Adjusted EBITDA of $11.0m (TTM) supports leverage at 4.0x and interest cover "
        "of 2.5x. Headroom stands at 20% on the leverage covenant and 25% on the interest covenant."
    )
    verdict = _score(_case("x01-approve").task(), _with_memo("x01-approve", memo))
    assert verdict.passed, _failed(verdict)


def test_a_memo_stuffed_with_numbers_but_naming_none_fails_the_content_check() -> None:
    numbers = " ".join(f"{n / 4:.2f}x {n:.1f}% {n},000,000" for n in range(0, 200))
    verdict = _score(_case("x01-approve").task(), _with_memo("x01-approve", f"Approve. {numbers}"))
    assert "content.credit.memo" in _failed(verdict)


def test_asking_for_two_items_in_two_requests_is_as_good_as_one() -> None:
    from adapters.credit.models import BorrowerAnswer, FundPolicy
    from envs.credit.assess import assess
    from envs.credit.expert.build import Hand, package, quarter
    from envs.credit.expert.cases_a import DELIVERED, RESTATED
    from envs.credit.tasks import to_task
    from envs.credit.worldgen import TODAY

    missing = BorrowerAnswer(
        item="missing_quarter", available=True, text="attached", period=quarter(Hand(), 2)
    )
    pkg = package(Hand(restated=RESTATED, drop_quarter=2, answers=(DELIVERED, missing)), "PKG-T2")
    policy = FundPolicy()
    task = to_task(
        pkg, assess(pkg, policy, TODAY), policy, task_id="split", seed=0, distribution="test", tags=()
    )
    gold = task.gold_solution
    at = next(i for i, c in enumerate(gold) if c.name == "request_information")
    asked = gold[at]
    split = tuple(
        asked.model_copy(
            update={"call_id": f"{asked.call_id}-{n}", "arguments": {**asked.arguments, "items": [item]}}
        )
        for n, item in enumerate(asked.arguments["items"])
    )
    assert len(split) == 2
    verdict = _score(task, (*gold[:at], *split, *gold[at + 1 :]))
    assert verdict.passed, _failed(verdict)
