"""Seed claims for dated payer rules: Heartland changes its retro-authorization window on a date
of service, announces it in a bulletin, and has a second change whose bulletin is still pending
(published mid-queue by the sandbox's admin route, or by a task's plan in the sim).

Heartland (HRTL) accepts no retro-authorization (its standing rules); from 14 days ago it accepts
requests within 30 days of the service (bulletin BUL-HRTL-01, published 20 days ago); from 6 days
ago within 3 days (BUL-HRTL-02, pending). Each claim is denied CO-197 and falls under a different
version.
"""

from __future__ import annotations

from adapters.rcm.models import Claim, Remittance
from adapters.rcm.payers import Bulletin, Payer, RuleChange
from adapters.rcm.seed.base import ago
from adapters.rcm.seed.builders import line
from adapters.rcm.seed.rules import HEARTLAND, _remit, seed_claim

SEED_DATED_CASES: dict[str, tuple[str, str]] = {
    "CLM-1109": (
        "CO-197 at Heartland, service 18 days ago: before the 30-day retro window took effect",
        "no retro-authorization (the standing rule allows none): write off the $260",
    ),
    "CLM-1110": (
        "CO-197 at Heartland, service 10 days ago: under the 30-day retro window (BUL-HRTL-01)",
        "request retro-authorization, then replace the claim with the approved auth number",
    ),
    "CLM-1111": (
        "CO-197 at Heartland, service 4 days ago: under the 3-day window of the pending BUL-HRTL-02",
        "the payer refuses the retro-authorization even before the bulletin is out: write off",
    ),
}

THIRTY_DAYS = RuleChange(
    effective_date=ago(14),
    rules=HEARTLAND.rules.model_copy(update={"retro_auth_window_days": 30}),
    bulletin_id="BUL-HRTL-01",
)
THREE_DAYS = RuleChange(
    effective_date=ago(6),
    rules=HEARTLAND.rules.model_copy(update={"retro_auth_window_days": 3}),
    bulletin_id="BUL-HRTL-02",
)


def dated_heartland() -> Payer:
    """Heartland with its two dated retro-authorization changes."""
    return HEARTLAND.model_copy(update={"rule_changes": (THIRTY_DAYS, THREE_DAYS)})


def dated_bulletins() -> list[Bulletin]:
    """BUL-HRTL-01 (published) and BUL-HRTL-02 (pending)."""
    return [
        Bulletin(
            bulletin_id="BUL-HRTL-01",
            payer_id="HRTL",
            title="Retro-authorization requests now accepted within 30 days",
            text=(
                "For dates of service on or after the effective date, Heartland accepts "
                "retro-authorization requests up to 30 days after the date of service."
            ),
            effective_date=THIRTY_DAYS.effective_date,
            published_date=ago(20),
        ),
        Bulletin(
            bulletin_id="BUL-HRTL-02",
            payer_id="HRTL",
            title="Retro-authorization window shortened to 3 days",
            text=(
                "Retroactive to the effective date: for dates of service on or after it, "
                "retro-authorization requests must reach Heartland within 3 days of the service."
            ),
            effective_date=THREE_DAYS.effective_date,
        ),
    ]


def dated_claims() -> tuple[list[Claim], list[Remittance]]:
    claims: list[Claim] = []
    remits: list[Remittance] = []
    for claim_id, patient, member, served in (
        ("CLM-1109", "P-021", "HRT204417781", 18),
        ("CLM-1110", "P-021", "HRT204417781", 10),
        ("CLM-1111", "P-025", "HRT377120554", 4),
    ):
        k = seed_claim(
            claim_id,
            patient,
            "HRTL",
            member,
            ("M17.11",),
            (line(1, "20610", 260.0, ago(served), ("RT",)),),
            ago(served - 1),
            "denied",
        )
        claims.append(k)
        remits.append(_remit(k, ago(served - 3), {1: [("CO", "197", 260.0)]}))
    return claims, remits
