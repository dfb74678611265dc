"""Quality-of-earnings answers that decide, and equity cure rights: the report is asked for first
only where support would change the decision, the decision is the one on the file the report
leaves, a restated quarter replaces its period; cure rights beyond the policy's limit are
tightened, and a cure never rescues a covenant breached at closing."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from adapters.credit.answers import answered
from adapters.credit.models import AddBack, BorrowerAnswer, FundPolicy
from envs.credit import generate_edge
from envs.credit.assess import after_answers, assess, decide
from envs.credit.covenants import cure_amount, cures_beyond_policy
from envs.credit.expert.build import LEGAL, TRADE_SHOW, Hand, M, package, quarter
from envs.credit.memo_check import evidence_problem
from envs.credit.promotion import PROMOTION
from envs.credit.ratios import exact, inputs_for
from envs.credit.worldgen import TODAY
from loopline.demo.episodes import record, redactor
from schemas.tasks import Task

POLICY = FundPolicy()
SALE = AddBack(
    addback_id="AB-3",
    description="One-off costs of the failed sale process",
    category="non_recurring",
    amount=1.5 * M,
    supported=False,
)
# 57.2m on 11.0m is 5.2x (a lower amount); with the 1.5m line supported, 4.58x (an approval).
DECIDING = Hand(
    facility=57.2 * M,
    covenants=(("max_total_leverage", 6.5), ("min_interest_coverage", 1.5)),
    addbacks=(LEGAL, TRADE_SHOW, SALE),
)


def _qoe(*lines: AddBack, available: bool = True) -> BorrowerAnswer:
    return BorrowerAnswer(item="quality_of_earnings", available=available, text="QoE report", addbacks=lines)


def test_the_report_is_asked_for_first_only_where_support_would_change_the_decision() -> None:
    deciding = package(DECIDING, "PKG-Q1")
    assert assess(deciding, POLICY, TODAY).ask_first == ("quality_of_earnings",)
    # The same line on the reference package (4.0x either way) decides nothing: it may be asked for.
    idle = package(Hand(addbacks=(LEGAL, TRADE_SHOW, SALE)), "PKG-Q2")
    found = assess(idle, POLICY, TODAY)
    assert found.ask_first == () and "quality_of_earnings" in found.may_ask and found.classes == ("approve",)


@pytest.mark.parametrize(
    ("answer", "classes", "adjusted"),
    [
        (_qoe(SALE.model_copy(update={"supported": True})), ("approve",), 12.5 * M),
        (
            _qoe(SALE.model_copy(update={"supported": True, "support_amount": 0.3 * M})),
            ("approve_with_conditions",),
            11.3 * M,
        ),
        (
            _qoe(SALE.model_copy(update={"supported": True, "booked_in": ("FY2023", "FY2024")})),
            ("approve_with_conditions",),
            11.0 * M,
        ),
        (_qoe(available=False), ("request_information",), None),
    ],
    ids=["confirms", "ties_part", "finds_recurring", "to_follow"],
)
def test_the_decision_is_the_one_on_the_file_the_report_leaves(
    answer: BorrowerAnswer, classes: tuple[str, ...], adjusted: float | None
) -> None:
    found = assess(package(replace(DECIDING, answers=(answer,)), "PKG-Q3"), POLICY, TODAY)
    assert found.classes == classes and found.ask_first == ("quality_of_earnings",)
    if adjusted is not None:
        assert found.figures is not None and found.figures.adjusted_ebitda == adjusted


def test_a_report_that_restates_a_quarter_replaces_it_and_the_ttm_is_rebuilt() -> None:
    first = quarter(DECIDING, 0)
    restated = first.model_copy(
        update={
            "restated": True,
            "restated_on": TODAY,
            "original_ebitda": first.income.ebitda,
            "income": first.income.model_copy(update={"ebitda": 1.2 * M}),
        }
    )
    answer = _qoe(SALE.model_copy(update={"supported": True})).model_copy(update={"period": restated})
    p = package(DECIDING, "PKG-Q4")
    after = answered(p, answer)
    assert [x for x in after.periods if x.label == first.label] == [restated]
    assert len(after.periods) == len(p.periods)
    assert (
        exact(inputs_for(after, POLICY)).adjusted_ebitda == Fraction(112, 10) * 1_000_000
    )  # 8.7 + 1.0 + 1.5
    # A period of a known label that is not a restatement changes nothing.
    assert answered(p, answer.model_copy(update={"period": first, "addbacks": ()})).periods == p.periods
    found = decide(
        after_answers(p.model_copy(update={"answers": (answer,)}), ("quality_of_earnings",)), POLICY
    )
    assert found.classes == ("approve_with_conditions",) and found.max_amount == 56.0 * M


def test_cure_rights_beyond_the_policys_limit_are_tightened_and_within_it_left_alone() -> None:
    beyond = package(Hand(cures=(("max_total_leverage", 5),)), "PKG-K1")
    assert [c.metric for c in cures_beyond_policy(beyond.term_sheet.covenants, POLICY)] == [
        "max_total_leverage"
    ]
    found = assess(beyond, POLICY, TODAY)
    assert found.classes == ("approve_with_conditions",) and found.conditions == ("tighter_covenant",)
    within = package(Hand(cures=(("max_total_leverage", 4),)), "PKG-K2")
    assert assess(within, POLICY, TODAY).classes == ("approve",)
    assert assess(beyond, FundPolicy(max_equity_cures=5), TODAY).classes == ("approve",)


def test_a_cure_right_never_rescues_a_breach_at_closing_and_the_cure_needed_is_computed() -> None:
    hand = Hand(
        covenants=(("max_total_leverage", 3.8), ("min_interest_coverage", 2.0)),
        cures=(("max_total_leverage", 2),),
    )
    p = package(hand, "PKG-K3")
    found = assess(p, POLICY, TODAY)
    assert found.classes == ("decline", "approve_with_conditions") and found.max_amount == 35_530_000.0
    e = exact(inputs_for(p, POLICY))
    leverage, cover = p.term_sheet.covenants
    # 44.0m at 3.8x needs 11.578947m of EBITDA: the sponsor would inject 0.578947m; cover passes.
    assert cure_amount(e, leverage) == Fraction(44 * 10**6) / Fraction(38, 10) - 11 * 10**6
    assert cure_amount(e, cover) == 0


def test_a_memo_may_state_a_cure_right_only_where_the_term_sheet_grants_one() -> None:
    memo = "Total leverage 4.00x; the sponsor may cure a failed test with equity."
    for cures, problem in ((2, False), (0, True)):
        p = package(Hand(cures=(("max_total_leverage", cures),)), "PKG-K4")
        world = {
            "packages": {p.package_id: p.model_dump(mode="json")},
            "policy": POLICY.model_dump(mode="json"),
        }
        found = evidence_problem(world, {"package_id": p.package_id, "memo": memo})
        assert (found is not None and "cure" in found) is problem


def _by_finding() -> list[Task]:
    tasks = generate_edge(seed=0, per_kind=8)
    picked: dict[str, Task] = {}
    for t in tasks:
        if "edge:qoe_decides" not in t.tags:
            continue
        p = next(iter(t.initial_world["packages"].values()))
        answer = next(a for a in p["answers"] if a["item"] == "quality_of_earnings")
        kind = (
            "restates"
            if answer.get("period")
            else ("part" if any(a.get("support_amount") for a in answer["addbacks"]) else "other")
        )
        picked.setdefault(kind, t)
    return list(picked.values())


@pytest.mark.parametrize("task", _by_finding(), ids=lambda t: t.task_id)
def test_an_episode_whose_report_changed_the_file_rebuilds_faithfully(task: Task, tmp_path: Path) -> None:
    assert "quality_of_earnings" in task.verifier.params["ask_first"]
    draft = PROMOTION.build_draft(
        record(task, redactor(tmp_path)), fingerprint="q" * 64, rule="unknown_vocabulary", threshold=0.9
    )
    assert draft.accepted and draft.fidelity.share == 1.0, draft.fidelity.mismatches
    spec, _ = PROMOTION.suggested_spec(draft)
    assert spec.outcome == task.verifier.outcome
