"""Seed-world constants: the date, the practice and its providers, and the four payers."""

from __future__ import annotations

from datetime import date, timedelta

from adapters.rcm.models import Payer, PayerRules, Practice, Provider

TODAY = date(2025, 6, 16)
BILLING_NPI = "1316246810"
DR_ORTIZ = "1497758544"  # rendering, credentialed with every payer
DR_KAUR = "1558365930"  # rendering, not yet certified with Medicare (CARC B7)


def ago(days: int) -> date:
    return TODAY - timedelta(days=days)


PAYERS = [
    Payer(
        payer_id="MCR",
        name="Medicare Part B J15",
        kind="medicare",
        claim_filing_indicator="MB",
        rules=PayerRules(
            timely_filing_days=365, appeal_window_days=120, retro_auth_window_days=0, notice_receipt_days=5
        ),
    ),
    Payer(
        payer_id="ACME",
        name="Acme Health PPO",
        kind="commercial",
        claim_filing_indicator="12",
        rules=PayerRules(
            timely_filing_days=90,
            appeal_window_days=180,
            retro_auth_window_days=14,
            auth_requires_documentation=True,
        ),
    ),
    Payer(
        payer_id="BLUE",
        name="Bluestone Health Plan",
        kind="commercial",
        claim_filing_indicator="HM",
        rules=PayerRules(
            timely_filing_days=180,
            appeal_window_days=60,
            retro_auth_window_days=30,
            auth_decision_by_code={"72148": "pended"},
            telehealth_requires_modifier_95=True,
        ),
    ),
    Payer(
        payer_id="MCD",
        name="State Medicaid",
        kind="medicaid",
        claim_filing_indicator="MC",
        rules=PayerRules(timely_filing_days=365, appeal_window_days=90, retro_auth_window_days=0),
    ),
]

# patient id, first, last, birth date, gender, [(payer, member id, cob order, start, end, subscriber)]

PRACTICE = Practice(name="Riverside Family Medicine", billing_npi=BILLING_NPI, tax_id="364812597")
PROVIDERS = [
    Provider(npi=BILLING_NPI, name="Riverside Family Medicine", kind="organization"),
    Provider(npi=DR_ORTIZ, name="Ana Ortiz, MD", kind="individual"),
    Provider(npi=DR_KAUR, name="Ben Kaur, MD", kind="individual"),
]
