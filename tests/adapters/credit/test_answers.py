"""Answers change the file: the same world after a request in the sim as in the sandbox (the
conformance suite), and here what each answer changes."""

from __future__ import annotations

from adapters.credit import args as a
from adapters.credit.logic import apply
from adapters.credit.sandbox import seed_world
from envs.credit.assess import after_answers, ask_first, assess, decide
from envs.credit.diligence import cure_needed, cured, prior_default
from envs.credit.ratios import exact, inputs_for


def _ask(world: object, *items: str, package_id: str = "PKG-1007") -> object:
    args = a.RequestInformationArgs.model_validate(
        {"package_id": package_id, "items": list(items), "message": "please send " + ", ".join(items)}
    )
    return apply(world, "request_information", args)[1]  # type: ignore[arg-type]


def test_sources_and_uses_delivered_change_the_debt_after_closing() -> None:
    world = seed_world()
    before = world.packages["PKG-1007"]
    after = _ask(world, "sources_and_uses").packages["PKG-1007"]  # type: ignore[attr-defined]
    assert before.sources_and_uses is None and after.sources_and_uses is not None
    # Without the table the 8.0m loan counts in full; the table repays 5.0m of it: 3.0m stays.
    policy = world.policy
    assert (
        exact(inputs_for(before, policy)).total_debt - exact(inputs_for(after, policy)).total_debt
        == 5_000_000
    )


def test_a_quality_of_earnings_report_supports_the_addback_as_far_as_it_ties() -> None:
    world = seed_world()
    after = _ask(world, "quality_of_earnings").packages["PKG-1007"]  # type: ignore[attr-defined]
    line = next(x for x in after.bridge.addbacks if x.addback_id == "AB-3")
    assert line.supported and line.support_amount == 250_000.0
    gain = (
        exact(inputs_for(after, world.policy)).adjusted_ebitda
        - exact(inputs_for(world.packages["PKG-1007"], world.policy)).adjusted_ebitda
    )
    assert gain == 250_000


def test_the_decision_is_taken_on_the_file_as_the_answers_left_it() -> None:
    world = seed_world()
    package = world.packages["PKG-1007"]
    worked = after_answers(package, ("sources_and_uses", "quality_of_earnings"))
    asis, answered = decide(package, world.policy), decide(worked, world.policy)
    assert asis.figures is not None and answered.figures is not None
    assert answered.figures.total_leverage < asis.figures.total_leverage


def test_facts_received_are_in_the_package_record() -> None:
    world = _ask(seed_world(), "compliance_certificates", "breach_history")
    received = " ".join(world.packages["PKG-1007"].received_answers)  # type: ignore[attr-defined]
    assert "every test passed" in received and "No covenant breach" in received


def test_a_quality_of_earnings_report_that_restates_a_quarter_replaces_it_in_the_deal_system() -> None:
    world = seed_world()
    before = world.packages["PKG-1008"]
    after = _ask(world, "quality_of_earnings", package_id="PKG-1008").packages["PKG-1008"]  # type: ignore[attr-defined]
    q2 = [p for p in after.periods if p.label == "2025Q2"]
    assert len(q2) == 1 and q2[0].restated and q2[0].original_ebitda == 2_400_000.0
    assert q2[0].income.ebitda == 1_900_000.0 and len(after.periods) == len(before.periods)
    assert next(x for x in after.bridge.addbacks if x.addback_id == "AB-3").supported
    # The restatement takes 0.5m off reported EBITDA; the confirmed line adds 0.9m back.
    gain = (
        exact(inputs_for(after, world.policy)).adjusted_ebitda
        - exact(inputs_for(before, world.policy)).adjusted_ebitda
    )
    assert gain == 400_000


def test_certificates_breach_history_and_a_customer_notice_change_the_deal_systems_file() -> None:
    world = seed_world()
    before = world.packages["PKG-1009"]
    items = ("compliance_certificates", "breach_history", "customer_contracts")
    assert set(items) <= set(ask_first(before, world.policy, world.today))
    after = _ask(world, *items, package_id="PKG-1009").packages["PKG-1009"]  # type: ignore[attr-defined]
    loan = next(d for d in after.existing_debt if d.debt_id == "D-2")
    assert loan.certificate is not None and loan.outstanding == 4_500_000.0
    assert cured(loan) and cure_needed(loan) == 200_000  # 13.5m / 4.5x - 2.8m; 0.25m paid, 0.5m may count
    assert after.sponsor.breach_history is not None and prior_default(after.sponsor)
    assert after.borrower.largest_customer_contract is not None
    # The certified principal adds 1.5m of debt; the customer's 0.9m of EBITDA comes off.
    e0, e1 = exact(inputs_for(before, world.policy)), exact(inputs_for(after, world.policy))
    assert e1.total_debt - e0.total_debt == 1_500_000 and e0.adjusted_ebitda - e1.adjusted_ebitda == 900_000
    found = assess(before, world.policy, world.today)
    assert found.classes[0] == "escalate" and "sponsor_prior_default" in found.escalation_reasons
