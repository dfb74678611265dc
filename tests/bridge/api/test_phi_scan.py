"""A PHI scan after runs that put PHI in every free-text field and an undeclared argument: the
outbox (what the topic receives byte for byte) and the archive hold no raw value."""

from __future__ import annotations

import json

import pytest

from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

SSN, PHONE, EMAIL = "123-45-6789", "(217) 555-0143", "maria.lopez@example.com"


def test_a_scan_of_outbox_and_archive_finds_no_raw_phi_after_phi_in_every_free_text_field(
    bridge: Bridge,
) -> None:
    agent, integration = bridge.client("agent-token"), bridge.client("integration-token")
    item = {"domain": "rcm", "kind": "denial", "item_id": "CLM-1001", "payload": {"claim_id": "CLM-1001"},
            "instructions": f"Patient called from {PHONE}, SSN {SSN}; mail {EMAIL}."}  # fmt: skip
    run = agent.post("/v1/episodes", json={"work_item": item}).json()
    episode_id = agent.post("/v1/gateway/episodes", json={"work_item": item}).json()["episode_id"]
    calls = f"/v1/gateway/episodes/{episode_id}"
    claim = agent.post(f"{calls}/calls", json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}})
    claim_data = claim.json()["result"]["claim"]
    name = f"{claim_data['patient_first_name']} {claim_data['patient_last_name']}"
    dob = claim_data["patient_birth_date"]
    undeclared = {"claim_id": "CLM-1001", "ssn": SSN, "note": f"for {name}"}
    agent.post(f"{calls}/calls", json={"name": "get_claim", "arguments": undeclared})
    eligibility = {"payer_id": "BLUE", "member_id": "BLU999999999", "date_of_service": "2026-01-05"}
    agent.post(f"{calls}/calls", json={"name": "check_eligibility", "arguments": eligibility})
    agent.post(
        f"{calls}/escalate", json={"reason": f"{name.upper()} (born {dob}) disputes", "recommendation": EMAIL}
    )
    agent.post(f"{calls}/close", json={"status": "escalated", "final_message": f"Handed {name} to billing"})
    outcome = {"episode_id": run["episode_id"], "kind": "paid", "item_id": "CLM-1001",
               "observed_at": "2026-02-01T00:00:00Z", "external_ref": f"ERA {SSN} / {PHONE}"}  # fmt: skip
    assert integration.post("/v1/outcomes", json=outcome).status_code == 202
    bridge.project()
    outbox = json.dumps([bridge.capture.outbox.events(e) for e in (run["episode_id"], episode_id)])
    archive = json.dumps(
        [
            e["structured"]
            for e in bridge.client("reviewer-token").get(f"/v1/episodes/{episode_id}/events").json()
        ]
    )
    raw = [SSN, PHONE, EMAIL, name, name.upper(), claim_data["patient_last_name"], dob, "BLU999999999"]
    for where, text in (("outbox", outbox), ("archive", archive)):
        assert [value for value in raw if value.lower() in text.lower()] == [], where
    assert "CLM-1001" in outbox and "disputes" in archive  # the rest stays readable
