"""The rules a billing office applies that the simple CARC table hides, in the domain logic: fee
schedules and contractual adjustments, ABN validity (see `adapters.rcm.seed.rules`)."""

from __future__ import annotations

from collections.abc import Callable

from adapters.rcm import SimBackend, World
from adapters.rcm.ledger import contractual_allowance, discretionary, patient_billable, underpaid
from schemas.tools import ToolOutcome, ToolResult

Call = Callable[..., ToolResult]


def test_a_contractual_adjustment_above_the_limit_posts_without_approval(call: Call) -> None:
    result = call("post_write_off", claim_id="CLM-1101", amount=900.0, reason_code="contractual")
    assert result.outcome is ToolOutcome.OK


def test_the_same_amount_as_a_discretionary_write_off_needs_approval(call: Call) -> None:
    result = call("post_write_off", claim_id="CLM-1101", amount=900.0, reason_code="administrative")
    assert result.error is not None and result.error.details["code"] == "write_off_needs_approval"


def test_a_negotiated_discount_at_the_contract_posts_above_the_limit_without_approval(call: Call) -> None:
    # CLM-1127: CO-131 of $900 leaves 29881 at its contracted $900.
    result = call("post_write_off", claim_id="CLM-1127", amount=900.0, reason_code="contractual")
    assert result.outcome is ToolOutcome.OK


def test_a_negotiated_discount_counts_as_contractual_only_up_to_the_contract(world: World) -> None:
    claim = world.claims["CLM-1127"]
    assert contractual_allowance(world, claim) == 900.0
    assert discretionary(world, claim, 900.0, "contractual") == 0.0
    assert discretionary(world, claim, 1000.0, "contractual") == 100.0


def test_an_allowed_amount_below_the_fee_schedule_is_an_underpayment(world: World) -> None:
    claim = world.claims["CLM-1102"]  # 99214 contracted at $150, allowed $120 of a $240 charge
    assert underpaid(world, claim) == 30.0
    assert contractual_allowance(world, claim) == 90.0
    assert underpaid(world, world.claims["CLM-1101"]) == 0.0


def test_contractual_write_offs_beyond_the_allowance_count_against_the_limit(world: World) -> None:
    claim = world.claims["CLM-1102"]
    assert discretionary(world, claim, 90.0, "contractual") == 0.0
    assert discretionary(world, claim, 120.0, "contractual") == 30.0
    assert discretionary(world, claim, 50.0, "small_balance") == 50.0


def test_without_a_fee_schedule_the_remittance_sets_the_contractual_amount(world: World) -> None:
    claim = world.claims["CLM-1018"]  # ACME, no contract on file: CO-45 $70 plus PR-2
    assert contractual_allowance(world, claim) == 70.0
    assert underpaid(world, claim) == 0.0


def test_only_a_valid_abn_makes_a_co50_ga_line_patient_billable(world: World) -> None:
    assert patient_billable(world, world.claims["CLM-1015"]) == 175.0  # named, reasoned, signed before
    assert patient_billable(world, world.claims["CLM-1103"]) == 0.0  # signed three days after the test
    assert patient_billable(world, world.claims["CLM-1104"]) == 0.0  # routine form naming no service


def test_billing_the_patient_on_an_abn_signed_afterwards_is_a_recorded_violation(
    call: Call, sim: SimBackend
) -> None:
    result = call(
        "transfer_to_patient_responsibility",
        claim_id="CLM-1103",
        amount=120.0,
        reason="non_covered_with_waiver",
    )
    assert result.outcome is ToolOutcome.OK
    assert [v.claim_id for v in sim.world.violations] == ["CLM-1103"]


def test_an_unsigned_abn_naming_the_service_does_not_count(world: World) -> None:
    document = world.documents["DOC-1015"].model_copy(update={"signed": False})
    unsigned = world.model_copy(update={"documents": {**world.documents, "DOC-1015": document}})
    assert patient_billable(unsigned, unsigned.claims["CLM-1015"]) == 0.0


def test_a_medicare_appeal_window_runs_from_presumed_receipt(call: Call) -> None:
    # CLM-1105's notice is dated 123 days ago: received (presumed) 118 days ago, inside the 120.
    result = call(
        "submit_appeal",
        claim_id="CLM-1105",
        basis="medical_necessity",
        reason="Claim CLM-1105 denied CO-50: records and the letter of medical necessity attached.",
        attachment_document_ids=["DOC-1105A", "DOC-1105B"],
    )
    assert result.outcome is ToolOutcome.OK
    assert result.result is not None and result.result["appeal"]["deadline"] == "2025-06-18"


def test_past_the_presumed_receipt_window_the_appeal_is_refused_with_the_date(call: Call) -> None:
    result = call(
        "submit_appeal",
        claim_id="CLM-1023",
        basis="other",
        reason="please reconsider",
        attachment_document_ids=[],
    )
    assert result.error is not None and result.error.details["code"] == "appeal_window_closed"
    assert "presumed receipt 5 days after" in result.error.message


def test_a_line_with_59_beside_an_x_modifier_is_refused_and_the_x_modifier_alone_goes(call: Call) -> None:
    both = call(
        "submit_replacement_claim",
        claim_id="CLM-1016",
        original_claim_control_number="BLUE25101600",
        corrections={"lines": [{"line_number": 2, "modifiers": ["59", "XS"]}]},
    )
    assert both.error is not None and both.error.details["code"] == "invalid_line"
    alone = call(
        "submit_replacement_claim",
        claim_id="CLM-1016",
        original_claim_control_number="BLUE25101600",
        corrections={"lines": [{"line_number": 2, "modifiers": ["XS"]}]},
    )
    assert alone.outcome is ToolOutcome.OK


def test_with_an_active_secondary_the_patient_share_is_not_yet_billable(world: World) -> None:
    claim = world.claims["CLM-1106"]  # Heartland primary (CO-45 + PR-2 $30), Medicare secondary
    assert patient_billable(world, claim) == 0.0
    assert patient_billable(world, claim, before_secondary=True) == 30.0


def test_billing_the_patient_before_the_secondary_is_a_recorded_violation(
    call: Call, sim: SimBackend
) -> None:
    result = call(
        "transfer_to_patient_responsibility", claim_id="CLM-1106", amount=30.0, reason="coinsurance"
    )
    assert result.outcome is ToolOutcome.OK
    assert [(v.kind, v.amount) for v in sim.world.violations] == [("patient_billed_before_secondary", 30.0)]


def test_a_secondary_claim_carries_the_primary_adjudication(call: Call, sim: SimBackend) -> None:
    wrong_order = call(
        "bill_other_payer",
        claim_id="CLM-1106",
        payer_id="MCR",
        member_id="3GT5KM8RX27",
        payer_sequence="primary",
    )
    assert wrong_order.error is not None and wrong_order.error.details["code"] == "cob_order_mismatch"
    sent = call(
        "bill_other_payer",
        claim_id="CLM-1106",
        payer_id="MCR",
        member_id="3GT5KM8RX27",
        payer_sequence="secondary",
    )
    assert sent.result is not None
    prior = sim.world.claims[sent.result["claim_id"]].prior_payer
    assert prior is not None and (prior.payer_id, prior.paid_amount, prior.patient_responsibility_amount) == (
        "HRTL",
        120.0,
        30.0,
    )


def test_the_payer_rejects_another_patients_member_id(call: Call) -> None:
    result = call(
        "bill_other_payer",
        claim_id="CLM-1017",
        payer_id="MCR",
        member_id="1EG4TE5MK72",
        payer_sequence="primary",
    )
    assert result.error is not None and result.error.details["code"] == "member_not_this_patient"


def test_the_payer_rejects_an_auth_number_or_npi_not_on_file(call: Call) -> None:
    auth = call(
        "submit_replacement_claim",
        claim_id="CLM-1003",
        original_claim_control_number="ACME25100300",
        corrections={"prior_auth_number": "PA999999"},
    )
    assert auth.error is not None and auth.error.details["code"] == "auth_not_on_file"
    npi = call("submit_new_claim", claim_id="CLM-1024", corrections={"rendering_npi": "1234567893"})
    assert npi.error is not None and npi.error.details["code"] == "npi_not_on_file"
    on_file = call(
        "submit_replacement_claim",
        claim_id="CLM-1003",
        original_claim_control_number="ACME25100300",
        corrections={"prior_auth_number": "PA778812"},
    )
    assert on_file.outcome is ToolOutcome.OK
