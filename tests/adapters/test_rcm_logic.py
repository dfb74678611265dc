"""Domain logic over the seed world: each CARC row's correct move works, wrong moves are refused
or recorded, and the logic is pure and deterministic."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adapters.rcm import DomainError, SimBackend, World, apply, seed_world
from adapters.rcm import args as a
from adapters.rcm.fixtures import SEED_CASES
from adapters.rcm.ledger import insurance_balance, patient_billable
from schemas.tools import ToolOutcome, ToolResult

Call = Callable[..., ToolResult]


def test_seed_world_has_a_denied_claim_for_every_carc_row_with_its_remittance(world: World) -> None:
    for claim_id in SEED_CASES:
        assert world.latest_remittance(claim_id) is not None, claim_id
    carcs = {
        adj.reason_code for r in world.remittances.values() for line in r.lines for adj in line.adjustments
    }
    assert {
        "1",
        "2",
        "3",
        "4",
        "15",
        "16",
        "18",
        "22",
        "27",
        "29",
        "31",
        "45",
        "50",
        "97",
        "109",
        "197",
        "B7",
    } <= carcs


def test_seed_world_round_trips_through_json(world: World) -> None:
    assert World.from_snapshot(world.snapshot()) == world


def test_replacement_claim_supersedes_the_original_with_the_correction(call: Call, sim: SimBackend) -> None:
    result = call(
        "submit_replacement_claim",
        claim_id="CLM-1002",
        original_claim_control_number="BLUE25100200",
        corrections={"lines": [{"line_number": 1, "modifiers": ["95"]}]},
    )
    assert result.outcome is ToolOutcome.OK, result.error
    new_id = result.result["claim_id"]  # type: ignore[index]
    new, old = sim.world.claims[new_id], sim.world.claims["CLM-1002"]
    assert new.frequency_code == "7" and new.original_claim_control_number == "BLUE25100200"
    assert new.lines[0].modifiers == ("95",) and new.replaces_claim_id == "CLM-1002"
    assert old.status == "replaced" and old.replaced_by_claim_id == new_id
    again = call(
        "submit_replacement_claim",
        claim_id="CLM-1002",
        original_claim_control_number="BLUE25100200",
        corrections={},
    )
    assert again.error is not None and again.error.details["code"] == "claim_not_replaceable"


def test_replacement_with_a_wrong_control_number_is_refused_and_changes_nothing(
    call: Call, sim: SimBackend
) -> None:
    before = sim.world
    result = call(
        "submit_replacement_claim",
        claim_id="CLM-1001",
        original_claim_control_number="nope",
        corrections={"rendering_npi": "1497758544"},
    )
    assert result.outcome is ToolOutcome.FAILED and result.error is not None
    assert result.error.kind == "domain" and result.error.details["code"] == "control_number_mismatch"
    assert sim.world is before


def test_replacement_naming_a_missing_line_is_refused(call: Call) -> None:
    result = call(
        "submit_replacement_claim",
        claim_id="CLM-1001",
        original_claim_control_number="MCR25100100",
        corrections={"lines": [{"line_number": 7, "modifiers": ["59"]}]},
    )
    assert result.error is not None and result.error.details["code"] == "invalid_line"


def test_retro_auth_inside_the_window_is_approved_and_outside_is_refused(call: Call, sim: SimBackend) -> None:
    ok = call(
        "request_authorization",
        patient_id="P-004",
        payer_id="BLUE",
        procedure_codes=["11042"],
        diagnosis_codes=["L97.412"],
        service_date="2025-06-06",
        claim_id="CLM-1004",
    )
    auth = ok.result["authorization"]  # type: ignore[index]
    assert auth["status"] == "approved" and auth["retro"] and auth["auth_number"].startswith("PA")
    late = call(
        "request_authorization",
        patient_id="P-005",
        payer_id="MCD",
        procedure_codes=["72148"],
        diagnosis_codes=["M54.16"],
        service_date="2025-05-02",
    )
    assert late.error is not None and late.error.details["code"] == "retro_auth_window_closed"
    assert len(sim.world.authorizations) == 2  # the seed's one plus the approved request


def test_auth_decision_follows_payer_rules_pended_and_documentation(call: Call) -> None:
    pended = call(
        "request_authorization",
        patient_id="P-004",
        payer_id="BLUE",
        procedure_codes=["72148"],
        diagnosis_codes=["M54.16"],
        service_date="2025-07-01",
        urgency="expedited",
    )
    auth = pended.result["authorization"]  # type: ignore[index]
    assert auth["status"] == "pended" and auth["expected_decision_date"] == "2025-06-19"
    undocumented = call(
        "request_authorization",
        patient_id="P-003",
        payer_id="ACME",
        procedure_codes=["20610"],
        diagnosis_codes=["M17.11"],
        service_date="2025-06-20",
    )
    assert undocumented.result["authorization"]["status"] == "denied"  # type: ignore[index]
    documented = call(
        "request_authorization",
        patient_id="P-003",
        payer_id="ACME",
        procedure_codes=["20610"],
        diagnosis_codes=["M17.11"],
        service_date="2025-06-20",
        attachment_document_ids=["DOC-1003"],
    )
    assert documented.result["authorization"]["status"] == "approved"  # type: ignore[index]


def test_appeal_is_filed_inside_the_window_and_refused_after_it(call: Call, sim: SimBackend) -> None:
    filed = call(
        "submit_appeal",
        claim_id="CLM-1014",
        basis="medical_necessity",
        reason="Records show failed conservative care.",
        attachment_document_ids=["DOC-1014A", "DOC-1014B"],
    )
    assert filed.outcome is ToolOutcome.OK
    assert sim.world.appeals["APL-00001"].attachment_document_ids == ("DOC-1014A", "DOC-1014B")
    twice = call(
        "submit_appeal",
        claim_id="CLM-1014",
        basis="other",
        reason="second try at it",
        attachment_document_ids=[],
    )
    assert twice.error is not None and twice.error.details["code"] == "appeal_pending"
    late = call(
        "submit_appeal",
        claim_id="CLM-1023",
        basis="medical_necessity",
        reason="records support it",
        attachment_document_ids=[],
    )
    assert late.error is not None and late.error.details["code"] == "appeal_window_closed"


def test_appeal_attachment_of_another_patient_is_refused(call: Call) -> None:
    result = call(
        "submit_appeal",
        claim_id="CLM-1014",
        basis="medical_necessity",
        reason="see the attached note",
        attachment_document_ids=["DOC-1005"],
    )
    assert result.error is not None and result.error.details["code"] == "invalid_attachment"


def test_billing_the_patient_for_a_co_adjustment_is_recorded_as_a_violation(
    call: Call, sim: SimBackend
) -> None:
    ok = call("transfer_to_patient_responsibility", claim_id="CLM-1018", amount=28.0, reason="coinsurance")
    assert ok.outcome is ToolOutcome.OK and not sim.world.violations
    bad = call("transfer_to_patient_responsibility", claim_id="CLM-1018", amount=70.0, reason="other")
    assert bad.outcome is ToolOutcome.OK
    (violation,) = sim.world.violations
    assert violation.kind == "patient_billed_on_co_adjustment" and violation.amount == 70.0
    assert sim.world.patients["P-015"].balance == 98.0


def test_co_transfer_is_refused_when_the_practice_policy_says_so() -> None:
    world = seed_world()
    strict = world.model_copy(
        update={"practice": world.practice.model_copy(update={"co_transfer_policy": "refuse"})}
    )
    args = a.TransferToPatientArgs(claim_id="CLM-1014", amount=220.0, reason="other")
    with pytest.raises(DomainError) as refused:  # a CO-50 amount without an ABN
        apply(strict, "transfer_to_patient_responsibility", args)
    assert refused.value.code == "co_transfer_refused"


def test_abn_and_terminated_coverage_make_co_amounts_patient_billable(world: World) -> None:
    assert patient_billable(world, world.claims["CLM-1015"]) == 175.0  # CO-50, GA, signed ABN
    assert patient_billable(world, world.claims["CLM-1014"]) == 0.0  # CO-50, no ABN
    assert patient_billable(world, world.claims["CLM-1012"]) == 150.0  # PR-27, no other coverage
    assert patient_billable(world, world.claims["CLM-1011"]) == 0.0  # CO-27 but Bluestone covers the DOS


def test_write_off_above_the_limit_needs_approval_even_when_split(call: Call, sim: SimBackend) -> None:
    big = call("post_write_off", claim_id="CLM-1005", amount=1250.0, reason_code="no_authorization")
    assert big.error is not None and big.error.details["code"] == "write_off_needs_approval"
    first = call("post_write_off", claim_id="CLM-1005", amount=400.0, reason_code="no_authorization")
    assert first.outcome is ToolOutcome.OK
    second = call("post_write_off", claim_id="CLM-1005", amount=400.0, reason_code="no_authorization")
    assert second.error is not None and second.error.details["code"] == "write_off_needs_approval"
    assert insurance_balance(sim.world, sim.world.claims["CLM-1005"]) == 850.0


def test_write_off_beyond_the_balance_is_refused(call: Call) -> None:
    result = call("post_write_off", claim_id="CLM-1018", amount=99.0, reason_code="contractual")
    assert result.error is not None and result.error.details["code"] == "amount_exceeds_balance"


def test_bill_other_payer_creates_a_claim_at_the_covering_payer_only(call: Call, sim: SimBackend) -> None:
    wrong = call(
        "bill_other_payer",
        claim_id="CLM-1017",
        payer_id="BLUE",
        member_id="MCD88123456",
        payer_sequence="primary",
    )
    assert wrong.error is not None and wrong.error.details["code"] == "no_coverage_at_payer"
    same = call(
        "bill_other_payer",
        claim_id="CLM-1017",
        payer_id="ACME",
        member_id="ACM884120",
        payer_sequence="primary",
    )
    assert same.error is not None and same.error.details["code"] == "same_payer"
    ok = call(
        "bill_other_payer",
        claim_id="CLM-1017",
        payer_id="MCD",
        member_id="MCD88123456",
        payer_sequence="primary",
    )
    new = sim.world.claims[ok.result["claim_id"]]  # type: ignore[index]
    assert new.payer_id == "MCD" and new.billed_from_claim_id == "CLM-1017" and new.frequency_code == "1"


def test_eligibility_by_demographics_finds_the_member_id_a_claim_got_wrong(call: Call) -> None:
    by_member = call("check_eligibility", payer_id="ACME", member_id="ACM310525", service_date="2025-05-26")
    assert by_member.result is not None and by_member.result["found"] is False
    found = call(
        "check_eligibility",
        payer_id="ACME",
        first_name="Kevin",
        last_name="Nguyen",
        birth_date="1983-04-19",
        service_date="2025-05-26",
    )
    assert found.result is not None and found.result["coverages"][0]["member_id"] == "ACM310552"


def test_eligibility_reports_other_coverage_for_cob(call: Call) -> None:
    result = call("check_eligibility", payer_id="MCR", member_id="2KT7PL3XA19", service_date="2025-05-19")
    assert result.result is not None
    (other,) = result.result["other_coverage"]
    assert other["payer_id"] == "ACME" and other["cob_order"] == "primary"


def test_duplicate_lookup_finds_the_paid_and_the_denied_original(call: Call) -> None:
    paid = call("find_original_claim", claim_id="CLM-1008").result
    assert paid is not None and paid["original_claim_id"] == "CLM-0908" and paid["original_status"] == "paid"
    denied = call("find_original_claim", claim_id="CLM-1009").result
    assert denied is not None and denied["original_adjustment_codes"] == ["CO-16"]
    none = call("find_original_claim", claim_id="CLM-1001").result
    assert none is not None and none["found"] is False


def test_closed_claim_refuses_further_work_but_can_be_escalated(call: Call) -> None:
    assert (
        call("close_claim", claim_id="CLM-1008", reason="duplicate_of_paid_original").outcome
        is ToolOutcome.OK
    )
    refused = call("post_write_off", claim_id="CLM-1008", amount=10.0, reason_code="administrative")
    assert refused.error is not None and refused.error.details["code"] == "claim_closed"
    escalated = call(
        "escalate_to_human",
        claim_id="CLM-1008",
        queue="billing",
        recommended_action="review",
        reason="double-check the duplicate",
    )
    assert escalated.outcome is ToolOutcome.OK


def test_unknown_ids_are_domain_errors_naming_the_id(call: Call) -> None:
    result = call("get_claim", claim_id="CLM-9999")
    assert result.error is not None and result.error.kind == "domain" and "CLM-9999" in result.error.message


def test_logic_is_pure_and_ids_are_deterministic() -> None:
    world = seed_world()
    args = a.EscalateArgs(
        claim_id="CLM-1021",
        queue="credentialing",
        recommended_action="review",
        reason="rendering provider not certified with Medicare",
    )
    first, after_first = apply(world, "escalate_to_human", args)
    second, after_second = apply(world, "escalate_to_human", args)
    assert first == second and after_first == after_second
    assert world.escalations == {} and world.counters == {}
    assert after_first.claims is world.claims  # untouched collections are shared, not copied


def test_snapshot_restore_resumes_identically(sim: SimBackend, call: Call) -> None:
    state = sim.snapshot()
    one = call(
        "escalate_to_human",
        claim_id="CLM-1021",
        queue="credentialing",
        recommended_action="review",
        reason="provider not certified",
    )
    sim.restore(state)
    two = call(
        "escalate_to_human",
        claim_id="CLM-1021",
        queue="credentialing",
        recommended_action="review",
        reason="provider not certified",
    )
    assert one.result == two.result and len(sim.world.escalations) == 1
