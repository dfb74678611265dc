"""Claims the payer rejected at the front end (a 277CA rejection, no 835): never adjudicated.

The fix goes out as a new original claim (frequency 1). When the rejection names the patient's
identifier (`rejections.json`), eligibility by demographics gives the member id the payer knows;
any other rejection goes to a human with its message.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Any

from envs.rcm.desk import Desk, Facts, Script


@cache
def member_id_patterns() -> tuple[re.Pattern[str], ...]:
    raw = json.loads(files("envs.rcm").joinpath("rejections.json").read_text(encoding="utf-8"))
    return tuple(re.compile(p, re.IGNORECASE) for p in raw["member_id"])


def unremitted(claim: dict[str, Any], balance: float) -> Facts:
    """Facts about a claim no remittance answered (nothing adjudicated, no adjustment)."""
    return Facts(claim=claim, balance=balance, remit={"lines": [], "payer_claim_control_number": None})


def front_end_rejection(desk: Desk, claim_result: dict[str, Any]) -> Script:
    """Work a claim with no remittance: a 277CA rejection whose message names the member id →
    a new claim with the member id eligibility finds; any other state → a human, told why."""
    facts = unremitted(claim_result["claim"], float(claim_result["insurance_balance"]))
    status = yield from desk.read("get_claim_status", claim_id=facts.claim_id)
    acks = (status or {}).get("acknowledgments") or []
    if not acks or acks[-1]["action"] != "rejected":
        state = (status or {}).get("status_category_code") or "unknown"
        why = f"no remittance on file; claim status {state} at the payer: nothing to work yet"
        return (yield from desk.escalate(facts.claim_id, "billing", "review", why))
    ack = acks[-1]
    said = f"277CA {ack['status_category_code']} rejection of {ack['ack_date']} ({ack['message'] or 'no message'})"
    if not any(p.search(str(ack["message"])) for p in member_id_patterns()):
        why = f"{said}: never adjudicated; the fix is not on file, then send it as a new claim"
        return (yield from desk.escalate(facts.claim_id, "billing", "review", why))
    claim = facts.claim
    found = yield from desk.read(
        "check_eligibility",
        payer_id=claim["payer_id"],
        first_name=claim["patient_first_name"],
        last_name=claim["patient_last_name"],
        birth_date=claim["patient_birth_date"],
        service_date=facts.dos.isoformat(),
    )
    active = [c for c in (found or {}).get("coverages", []) if c["active_on_service_date"]]
    ours = [c for c in active if c["payer_id"] == claim["payer_id"]]
    if len(ours) != 1 or ours[0]["member_id"] == claim["member_id"]:
        why = f"{said}: eligibility by demographics gives no other member id at this payer"
        return (yield from desk.escalate(facts.claim_id, "billing", "review", why))
    # The corrected value stays in the claim's field, never in the note: a member id is PHI.
    note = f"{said}: never adjudicated; new claim with the member id eligibility returned on {desk.today.isoformat()}"
    return (yield from desk.new_claim(facts, {"member_id": ours[0]["member_id"]}, note))


__all__ = ["front_end_rejection"]
