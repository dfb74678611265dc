"""Compliance certificates, the sponsor's breach history and the largest customer's contract are
answers that decide: asked for first where policy says, the decision is the one on the file the
answer leaves, twins with one visible signature land in different decisions, and a memo claiming
what the answer contradicts fails."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from adapters.credit.answers import answered
from adapters.credit.models import (
    BorrowerAnswer,
    BreachRecord,
    ComplianceCertificate,
    CreditPackage,
    CustomerContract,
    ExistingDebt,
    FundPolicy,
)
from envs.credit import generate_edge
from envs.credit.assess import assess
from envs.credit.blind import signature
from envs.credit.expert.build import Hand, M, package
from envs.credit.memo_check import evidence_problem
from envs.credit.ratios import exact, inputs_for
from envs.credit.worldgen import TODAY
from envs.domain import DOMAINS
from envs.env import replay
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task

POLICY = FundPolicy()
LOAN = ExistingDebt(
    debt_id="D-3",
    lender="Harbour Equipment Finance",
    seniority="senior_secured",
    outstanding=2.0 * M,
    currency="USD",
    rate_pct=8.0,
    annual_principal=0.1 * M,
    maintenance_covenants=True,
)


def _certificate(passed: bool, waived: bool = False, outstanding: float = 2.0 * M) -> BorrowerAnswer:
    cert = ComplianceCertificate(
        debt_id="D-3", period_end=date(2025, 3, 31), outstanding=outstanding, passed=passed, waived=waived
    )
    return BorrowerAnswer(
        item="compliance_certificates", available=True, text="Certificate", certificates=(cert,)
    )


def _history(*records: tuple[str, bool]) -> BorrowerAnswer:
    found = tuple(
        BreachRecord(
            company="Alder Logistics",
            year=2020,
            kind=kind,
            resolution="restructured",
            lenders_repaid_in_full=r,
        )
        for kind, r in records
    )
    return BorrowerAnswer(item="breach_history", available=True, text="History", breach_history=found)


def _contract(status: str, contribution: float = 0.5 * M) -> BorrowerAnswer:
    contract = CustomerContract(
        customer="Meridian Health System",
        status=status,
        ends=date(2033, 12, 31) if status == "renewed" else date(2026, 3, 1),
        ebitda_contribution=contribution,
    )
    return BorrowerAnswer(
        item="customer_contracts", available=True, text="Contract", customer_contract=contract
    )


CERTIFIED = Hand(debts=(LOAN,))
NEW_SPONSOR = Hand(record_on_file=False)
CONCENTRATED = Hand(customer_share=40.0, customer_contract_ends=date(2026, 3, 1))


def _assess(hand: Hand, *answers: BorrowerAnswer) -> Any:
    return assess(package(replace(hand, answers=answers), "PKG-D1"), POLICY, TODAY)


def test_each_answer_is_asked_for_first_only_where_its_fact_is_in_the_package() -> None:
    assert _assess(CERTIFIED).ask_first == ("compliance_certificates",)
    assert _assess(NEW_SPONSOR).ask_first == ("breach_history",)
    assert _assess(CONCENTRATED).ask_first == ("customer_contracts",)
    for hand in (CERTIFIED, NEW_SPONSOR, CONCENTRATED):
        assert _assess(hand).classes == ("request_information",)
    # Debt without maintenance covenants, a sponsor on file, a contract ending after maturity.
    assert _assess(Hand(debts=(LOAN.model_copy(update={"maintenance_covenants": False}),))).ask_first == ()
    assert _assess(Hand()).ask_first == ()
    later = replace(CONCENTRATED, customer_contract_ends=date(2032, 1, 1))
    found = _assess(later)
    assert found.ask_first == () and "customer_contracts" in found.may_ask


@pytest.mark.parametrize(
    ("answer", "classes", "reasons"),
    [
        (_certificate(True), ("approve",), ()),
        (_certificate(False, waived=True), ("approve",), ()),
        (_certificate(False), ("decline",), ()),
        (_certificate(True, outstanding=8.0 * M), ("escalate",), ("thin_covenant_headroom",)),
    ],
    ids=["passes", "waived", "in_default", "higher_balance"],
)
def test_a_certificate_decides(
    answer: BorrowerAnswer, classes: tuple[str, ...], reasons: tuple[str, ...]
) -> None:
    found = _assess(CERTIFIED, answer)
    assert (found.classes, found.escalation_reasons) == (classes, reasons)


def test_a_certified_principal_replaces_the_debt_tables() -> None:
    after = answered(package(CERTIFIED, "PKG-D2"), _certificate(True, outstanding=8.0 * M))
    assert after.existing_debt[0].outstanding == 8.0 * M and after.existing_debt[0].certificate is not None
    assert exact(inputs_for(after, POLICY)).total_debt == 52 * 10**6


@pytest.mark.parametrize(
    ("answer", "classes", "reasons"),
    [
        (_history(), ("approve",), ()),
        (_history(("covenant_breach", True)), ("approve",), ()),
        (_history(("payment_default", True)), ("approve",), ()),
        (_history(("payment_default", False)), ("escalate",), ("sponsor_prior_default",)),
    ],
    ids=["clean", "covenant_reset", "repaid_in_full", "lender_loss"],
)
def test_a_breach_history_decides(
    answer: BorrowerAnswer, classes: tuple[str, ...], reasons: tuple[str, ...]
) -> None:
    found = _assess(NEW_SPONSOR, answer)
    assert (found.classes, found.escalation_reasons) == (classes, reasons)


def test_a_customer_contract_decides() -> None:
    renewed = _assess(CONCENTRATED, _contract("renewed"))
    assert renewed.classes == ("approve_with_conditions", "escalate")
    assert renewed.conditions == ("concentration_limit",)
    # Notice given: its 0.5m comes off (11.0m -> 10.5m) and the concentration leaves with it.
    leaving = _assess(CONCENTRATED, _contract("notice_given"))
    assert leaving.classes == ("approve",) and leaving.figures is not None
    assert leaving.figures.adjusted_ebitda == 10.5 * M
    open_ = _assess(CONCENTRATED, _contract("in_negotiation"))
    assert (open_.classes, open_.escalation_reasons) == (("escalate",), ("customer_concentration",))


def _world(p: CreditPackage) -> dict[str, Any]:
    return {"packages": {p.package_id: p.model_dump(mode="json")}, "policy": POLICY.model_dump(mode="json")}


@pytest.mark.parametrize(
    ("hand", "claim", "liar", "honest"),
    [
        (CERTIFIED, "The existing lenders' tests were all passed.", _certificate(False), _certificate(True)),
        (
            CERTIFIED,
            "The lenders granted a waiver of the last test.",
            _certificate(True),
            _certificate(False, True),
        ),
        (
            NEW_SPONSOR,
            "The sponsor has a clean track record.",
            _history(("payment_default", False)),
            _history(),
        ),
        (
            CONCENTRATED,
            "The largest customer renewed its contract.",
            _contract("notice_given"),
            _contract("renewed"),
        ),
        (
            CONCENTRATED,
            "The largest customer renewed its contract.",
            _contract("in_negotiation"),
            _contract("renewed"),
        ),
    ],
    ids=[
        "compliance_after_a_miss",
        "waiver_not_granted",
        "clean_record_after_a_loss",
        "renewal_after_notice",
        "renewal_under_negotiation",
    ],
)
def test_a_memo_claiming_what_the_answer_contradicts_fails(
    hand: Hand, claim: str, liar: BorrowerAnswer, honest: BorrowerAnswer
) -> None:
    memo = f"Recommendation: approve. {claim}"
    for answer, fails in ((liar, True), (honest, False)):
        p = package(replace(hand, answers=(answer,)), "PKG-D3")
        found = evidence_problem(_world(p), {"package_id": p.package_id, "memo": memo})
        assert (found is not None) is fails, (answer.item, found)


def test_an_answers_words_grant_no_fact() -> None:
    """`will not renew` in the answer's text is no renewal the memo may state."""
    answer = _contract("notice_given").model_copy(update={"text": "The customer will not renew."})
    p = package(replace(CONCENTRATED, answers=(answer,)), "PKG-D4")
    found = evidence_problem(_world(p), {"package_id": p.package_id, "memo": "The customer renewed."})
    assert found is not None and "renewal" in found


FAMILIES = {
    "certificate_decides": "compliance_certificates",
    "breach_history_decides": "breach_history",
    "customer_contract_decides": "customer_contracts",
}
EDGE = generate_edge(seed=0, per_kind=8)


def _family(kind: str) -> list[Task]:
    return [t for t in EDGE if f"edge:{kind}" in t.tags]


@pytest.mark.parametrize("kind", sorted(FAMILIES))
def test_twins_with_one_visible_signature_land_in_different_decisions(kind: str) -> None:
    tasks = _family(kind)
    assert len(tasks) == 8 and all(FAMILIES[kind] in t.verifier.params["ask_first"] for t in tasks)
    by_signature: dict[str, set[tuple[str, ...]]] = {}
    for t in tasks:
        p = CreditPackage.model_validate(next(iter(t.initial_world["packages"].values())))
        sig = signature(p, POLICY, TODAY)[0]
        outcome = (*t.verifier.params["classes"], *sorted(x for x in t.tags if x.startswith("flag:")))
        by_signature.setdefault(sig, set()).add(outcome)
    # Some flag signature holds packages the answer sends to different outcomes.
    assert any(len(outcomes) > 1 for outcomes in by_signature.values()), by_signature
    # Within the family, the same answer item is always asked for, and the answers differ.
    texts = {
        next(
            a["text"]
            for a in next(iter(t.initial_world["packages"].values()))["answers"]
            if a["item"] == FAMILIES[kind]
        )
        for t in tasks
    }
    assert len(texts) > 1


@pytest.mark.parametrize("kind", sorted(FAMILIES))
def test_the_reference_passes_and_its_memo_with_a_contradicted_claim_fails(kind: str) -> None:
    verifier = VERIFIERS.get("credit.v1")
    claims = {
        "certificate_decides": " The borrower is in compliance under every facility.",
        "breach_history_decides": " The sponsor has never defaulted.",
        "customer_contract_decides": " The largest customer renewed its contract for five years.",
    }
    failed = 0
    for task in _family(kind):
        calls = task.gold_solution
        assert verifier.score(task, replay(DOMAINS.get("credit"), task, calls)).score == 1.0
        last = calls[-1]
        lie = last.model_copy(
            update={"arguments": {**last.arguments, "memo": str(last.arguments["memo"]) + claims[kind]}}
        )
        verdict = verifier.score(task, replay(DOMAINS.get("credit"), task, (*calls[:-1], lie)))
        failed += any(c.name == "content.credit.memo" and not c.passed for c in verdict.checks)
    assert failed >= 1


CAPPED = Hand(debts=(LOAN.model_copy(update={"max_cure_amount": 0.6 * M}),))


def _cured(paid: float) -> BorrowerAnswer:
    # Tested at 5.0x on 9.0m of debt and 1.5m of EBITDA: 1.8m of EBITDA passes, a 0.3m cure is needed.
    cert = ComplianceCertificate(
        debt_id="D-3",
        period_end=date(2025, 3, 31),
        outstanding=2.0 * M,
        passed=False,
        leverage_level=5.0,
        covenant_debt=9.0 * M,
        covenant_ebitda=1.5 * M,
        cure_paid=paid,
    )
    return BorrowerAnswer(item="compliance_certificates", available=True, text="Cure", certificates=(cert,))


@pytest.mark.parametrize(
    ("hand", "paid", "classes"),
    [
        (CAPPED, 0.3 * M, ("approve",)),
        (CAPPED, 0.299 * M, ("decline",)),
        (
            replace(CAPPED, debts=(LOAN.model_copy(update={"max_cure_amount": 0.25 * M}),)),
            0.4 * M,
            ("decline",),
        ),
        (CERTIFIED, 0.5 * M, ("decline",)),
    ],
    ids=["covers_the_shortfall", "short_by_a_thousand", "larger_than_the_documents_permit", "no_cure_right"],
)
def test_a_cure_cures_only_as_far_as_it_counts_and_covers_the_shortfall(
    hand: Hand, paid: float, classes: tuple[str, ...]
) -> None:
    assert _assess(hand, _cured(paid)).classes == classes


def test_a_memo_saying_a_short_cure_cured_the_test_fails() -> None:
    memo = "Recommendation: approve. The sponsor's equity cured the missed test."
    for paid, fails in ((0.2 * M, True), (0.3 * M, False)):
        p = package(replace(CAPPED, answers=(_cured(paid),)), "PKG-D5")
        found = evidence_problem(_world(p), {"package_id": p.package_id, "memo": memo})
        assert (found is not None) is fails, found
