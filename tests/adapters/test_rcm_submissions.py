"""New claims (frequency 1) after a rejection or an unprocessable return, against replacements
(frequency 7) of adjudicated claims: each move is accepted only where the payer would accept it."""

from __future__ import annotations

from collections.abc import Callable

from adapters.rcm import SimBackend
from adapters.rcm.fixtures import SEED_RETURNED_CASES
from schemas.tools import ToolOutcome, ToolResult

Call = Callable[..., ToolResult]


def _code(result: ToolResult) -> object:
    assert result.error is not None, result.result
    return result.error.details.get("code")


def test_seed_world_holds_an_unprocessable_and_a_rejected_claim(sim: SimBackend) -> None:
    world = sim.world
    unprocessable, rejected = (world.claims[c] for c in SEED_RETURNED_CASES)
    remit = world.latest_remittance(unprocessable.claim_id)
    assert remit is not None and "MA130" in remit.lines[0].remark_codes
    assert rejected.status == "rejected" and rejected.payer_claim_control_number is None
    assert world.latest_remittance(rejected.claim_id) is None


def test_new_claim_replaces_nothing_and_links_the_returned_claim(call: Call, sim: SimBackend) -> None:
    result = call("submit_new_claim", claim_id="CLM-1024", corrections={"diagnosis_codes": ["R53.83"]})
    assert result.outcome is ToolOutcome.OK, result.error
    new_id = result.result["claim_id"]  # type: ignore[index]
    new, old = sim.world.claims[new_id], sim.world.claims["CLM-1024"]
    assert new.frequency_code == "1" and new.original_claim_control_number is None
    assert new.replaces_claim_id is None and new.resubmits_claim_id == "CLM-1024"
    assert new.diagnosis_codes == ("R53.83",) and new.status == "accepted"
    assert [ack.action for ack in new.acknowledgments] == ["accepted"]
    assert new.payer_claim_control_number not in (None, old.payer_claim_control_number)
    assert old.status == "resubmitted" and old.resubmitted_as_claim_id == new_id
    assert result.result["resubmits_claim_id"] == "CLM-1024"  # type: ignore[index]


def test_a_claim_rejected_by_the_277ca_goes_out_again_as_a_new_claim(call: Call, sim: SimBackend) -> None:
    result = call("submit_new_claim", claim_id="CLM-1025", corrections={"member_id": "ACM100234"})
    assert result.outcome is ToolOutcome.OK, result.error
    new = sim.world.claims[result.result["claim_id"]]  # type: ignore[index]
    assert new.member_id == "ACM100234" and new.frequency_code == "1"
    status = call("get_claim_status", claim_id="CLM-1025").result
    assert status is not None and status["status_category_code"] == "A7"


def test_unprocessable_and_rejected_claims_cannot_be_replaced_or_appealed(
    call: Call, sim: SimBackend
) -> None:
    before = sim.world
    replace = call(
        "submit_replacement_claim",
        claim_id="CLM-1024",
        original_claim_control_number="MCR25102400",
        corrections={"diagnosis_codes": ["R53.83"]},
    )
    assert _code(replace) == "claim_not_replaceable" and "submit_new_claim" in str(replace.error)
    appeal = call(
        "submit_appeal",
        claim_id="CLM-1024",
        basis="coding",
        reason="the diagnosis was truncated; see the record",
        attachment_document_ids=[],
    )
    assert _code(appeal) == "no_appeal_rights"
    rejected = call(
        "submit_replacement_claim",
        claim_id="CLM-1025",
        original_claim_control_number="ACME25102500",
        corrections={"member_id": "ACM100234"},
    )
    assert _code(rejected) == "claim_not_replaceable"
    assert sim.world is before


def test_an_adjudicated_claim_is_refused_a_new_claim(call: Call, sim: SimBackend) -> None:
    before = sim.world
    assert _code(call("submit_new_claim", claim_id="CLM-1001", corrections={})) == "claim_was_adjudicated"
    assert _code(call("submit_new_claim", claim_id="CLM-1018", corrections={})) == "claim_was_adjudicated"
    assert sim.world is before


def test_a_claim_still_in_process_or_already_resent_is_refused_a_new_claim(call: Call) -> None:
    first = call("submit_new_claim", claim_id="CLM-1024", corrections={"diagnosis_codes": ["R53.83"]})
    new_id = first.result["claim_id"]  # type: ignore[index]
    assert _code(call("submit_new_claim", claim_id=new_id, corrections={})) == "claim_in_process"
    assert _code(call("submit_new_claim", claim_id="CLM-1024", corrections={})) == "claim_already_resubmitted"
