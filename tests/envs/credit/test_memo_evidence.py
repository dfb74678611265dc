"""The memo is evidence: each ratio it cites matches the computation, it states no fact the
package does not hold, and it names what decided."""

from __future__ import annotations

from typing import Any

import pytest

import envs.credit  # noqa: F401 - registers the domain and the verifier
from envs.credit.expert import load_expert_cases
from envs.credit.memo_check import RATIO_NAMES, cited_multiples, half_unit
from envs.domain import DOMAINS
from envs.env import replay
from envs.verifiers.base import VERIFIERS
from schemas.tools import ToolCall

VERIFIER = VERIFIERS.get("credit.v1")


def _case(case_id: str) -> Any:
    return next(c for c in load_expert_cases() if c.id == case_id)


def _last(case_id: str) -> tuple[tuple[ToolCall, ...], ToolCall]:
    calls = _case(case_id).golds[0].tool_calls()
    return calls, calls[-1]


def _memo_failed(case_id: str, edit: Any) -> bool:
    calls, last = _last(case_id)
    memo = edit(str(last.arguments["memo"]))
    changed = (*calls[:-1], last.model_copy(update={"arguments": {**last.arguments, "memo": memo}}))
    task = _case(case_id).task()
    verdict = VERIFIER.score(task, replay(DOMAINS.get("credit"), task, changed))
    return any(c.name == "content.credit.memo" and not c.passed for c in verdict.checks)


def test_the_gold_memo_passes() -> None:
    assert not _memo_failed("x01-approve", lambda m: m)


TRAPS = {
    "wrong_fccr": lambda m: m.replace("FCCR 1.96x", "FCCR 1.66x"),
    "wrong_dscr": lambda m: m.replace("DSCR 1.92x", "DSCR 2.12x"),
    "wrong_senior_leverage": lambda m: m.replace("senior leverage 4.00x", "senior leverage 3.50x"),
    "wrong_interest_cover_in_own_words": lambda m: m + " Interest cover of 2.9x is comfortable.",
    "wrong_liquidity": lambda m: m.replace("liquidity USD 8,000,000", "liquidity USD 9,500,000"),
    "invented_waiver": lambda m: m + " The lenders granted a waiver of the March covenant test.",
    "invented_renewal": lambda m: m + " The largest customer renewed its contract for five years.",
    "invented_cure": lambda m: m + " The sponsor cured the last breach with equity.",
    "invented_committee_approval": lambda m: m + " The investment committee has already approved the deal.",
}


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_every_memo_trap_fails_the_content_check(trap: str) -> None:
    _calls, last = _last("x01-approve")
    assert TRAPS[trap](str(last.arguments["memo"])) != last.arguments["memo"], "the trap edits the memo"
    assert _memo_failed("x01-approve", TRAPS[trap])


def test_a_memo_that_denies_a_waiver_states_no_fact() -> None:
    assert not _memo_failed("x01-approve", lambda m: m + " No waiver has been requested or granted.")


def test_a_ratio_written_with_fewer_decimals_is_right_within_its_rounding() -> None:
    assert not _memo_failed("x01-approve", lambda m: m.replace("FCCR 1.96x", "FCCR 2.0x"))
    assert _memo_failed("x01-approve", lambda m: m.replace("FCCR 1.96x", "FCCR 1.90x"))


def test_a_level_the_memo_compares_with_is_not_a_citation() -> None:
    assert cited_multiples("total leverage is at most 5.0x", RATIO_NAMES["total_leverage"]) == []
    assert cited_multiples("senior leverage 4.00x", RATIO_NAMES["total_leverage"]) == []
    assert cited_multiples("total leverage 4.00x", RATIO_NAMES["total_leverage"]) == ["4.00"]
    assert half_unit("4.3") == pytest.approx(0.05) and half_unit("4") == 0.5


def test_an_escalation_memo_that_omits_why_fails() -> None:
    case = _case("x05-escalate-leverage")
    assert "leverage_above_policy" in case.golds[0].calls[-1].arguments["reasons"]
    assert not _memo_failed(case.id, lambda m: m)
    assert _memo_failed(case.id, lambda m: m.split("Reasons:")[0])
    assert not _memo_failed(case.id, lambda m: m.split("Reasons:")[0] + " Total leverage is above policy.")


def test_a_memo_asking_for_more_equity_without_the_fccr_fails() -> None:
    case = next(
        c
        for c in load_expert_cases()
        if any(k.get("kind") == "more_equity" for k in c.golds[0].calls[-1].arguments.get("conditions", []))
    )
    assert not _memo_failed(case.id, lambda m: m)
    assert _memo_failed(case.id, lambda m: m.replace("FCCR", "cover ratio"))


def test_a_policy_that_follows_the_flags_fails_where_reading_the_package_decides() -> None:
    from envs.adversarial.battery import exploit_report
    from envs.credit.exploits import EXPLOITS

    flags = next(p for p in EXPLOITS if p.ref.model == "follow_the_flags")
    ids = ("y01-restructuring-three-years-running", "y03-equity-cure-decides", "y04-annual-charge-called-one-off",
           "y11-refinancing-partly-funded", "y12-refinancing-without-table", "y14-stale-ttm")  # fmt: skip
    tasks = [_case(i).task() for i in ids]
    report = exploit_report(tasks, policies=[flags], verifiers=["credit.v1"])
    assert not report.wins, [w.task_id for w in report.wins]
