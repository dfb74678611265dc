"""Naive scripted baselines: one move for every claim, whatever the denial says.

Each is what a desk without judgment would do; each should score far below the reference
specialist, which is what makes the verifier's numbers mean something.
"""

from __future__ import annotations

from envs.rcm.desk import DONE, Desk, Script
from envs.rollout.policy import PlanPolicy
from envs.script import ScriptPlan
from schemas.tasks import WorkItem


def _remittance(desk: Desk) -> Script:
    found = yield from desk.read("get_remittance", claim_id=desk.claim_id)
    remits = (found or {}).get("remittances", [])
    return remits[-1] if remits else None


def resubmit_script(item: WorkItem) -> Script:
    """Send the claim again as a replacement, unchanged."""
    desk = Desk(item)
    remit = yield from _remittance(desk)
    if remit:
        yield desk.call(
            "submit_replacement_claim",
            claim_id=desk.claim_id,
            original_claim_control_number=remit["payer_claim_control_number"],
            corrections={},
        )


def appeal_script(item: WorkItem) -> Script:
    """Appeal on medical necessity with every document on file."""
    desk = Desk(item)
    yield from _remittance(desk)
    found = yield from desk.read("get_documents", claim_id=desk.claim_id)
    docs = [d["document_id"] for d in (found or {}).get("documents", [])]
    reason = "We disagree with this denial; the attached documents support payment."
    yield desk.call(
        "submit_appeal",
        claim_id=desk.claim_id,
        basis="medical_necessity",
        reason=reason,
        attachment_document_ids=docs,
    )


def write_off_script(item: WorkItem) -> Script:
    """Write the whole balance off as contractual."""
    desk = Desk(item)
    yield from _remittance(desk)
    claim = yield from desk.read("get_claim", claim_id=desk.claim_id)
    balance = (claim or {}).get("insurance_balance", 0.0)
    if balance > 0:
        yield desk.call("post_write_off", claim_id=desk.claim_id, amount=balance, reason_code="contractual")


def escalate_script(item: WorkItem) -> Script:
    """Hand every claim to a supervisor."""
    desk = Desk(item)
    yield from _remittance(desk)
    why = "Please review this denial and decide how to work it."
    yield desk.call(
        "escalate_to_human",
        claim_id=desk.claim_id,
        queue="supervisor",
        recommended_action="review",
        reason=why,
    )


BASELINES: dict[str, tuple[PlanPolicy, str]] = {
    "always_resubmit": (
        PlanPolicy("always_resubmit", ScriptPlan(resubmit_script, DONE)),
        "resubmits every claim unchanged",
    ),
    "always_appeal": (
        PlanPolicy("always_appeal", ScriptPlan(appeal_script, DONE)),
        "appeals every claim with all documents",
    ),
    "write_off_all": (
        PlanPolicy("write_off_all", ScriptPlan(write_off_script, DONE)),
        "writes every balance off as contractual",
    ),
    "escalate_all": (
        PlanPolicy("escalate_all", ScriptPlan(escalate_script, DONE)),
        "escalates every claim to a supervisor",
    ),
}
"""The naive baselines by CLI name, with what each does."""
