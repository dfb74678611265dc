"""Seed claims for the rules a billing office applies that the simple CARC table hides: a payer
with a fee schedule on file (contractual adjustments above the approval limit, an underpayment),
and the claims the conformance suite exercises those rules on. Kept apart from `SEED_CASES`,
which is the demo's denial queue.
"""

from __future__ import annotations

from datetime import date

from adapters.rcm.era import AdjSpec, build_remittance, reversal_and_correction
from adapters.rcm.filing import filed_claim
from adapters.rcm.models import (
    Address,
    Claim,
    ClaimStatus,
    Coverage,
    Document,
    Patient,
    Payer,
    PayerRules,
    PayerSequence,
    Remittance,
    ServiceLine,
)
from adapters.rcm.records import WriteOff
from adapters.rcm.seed.base import BILLING_NPI, DR_ORTIZ, PAYERS, ago
from adapters.rcm.seed.builders import doc, line

HEARTLAND = Payer(
    payer_id="HRTL",
    name="Heartland Employers Health PPO",
    kind="commercial",
    claim_filing_indicator="14",
    rules=PayerRules(
        timely_filing_days=120,
        appeal_window_days=90,
        retro_auth_window_days=0,
        fee_schedule={"99213": 105.0, "99214": 150.0, "20610": 135.0, "29881": 900.0},
        prompt_pay_days=30,
        prompt_pay_interest_rate=0.09,
    ),
)

# claim id → (what it exercises, correct resolution), for tests and docs.
SEED_RULE_CASES: dict[str, tuple[str, str]] = {
    "CLM-1101": ("CO-45 at the contracted rate, $900", "contractual write-off: no approval needed"),
    "CLM-1102": (
        "CO-45 below the contracted rate",
        "appeal the $30 underpayment (99214 contracted at $150, allowed $120)",
    ),
    "CLM-1103": ("CO-50 GA, ABN signed after the service", "write off: the ABN shifts no liability"),
    "CLM-1104": ("CO-50 GA, generic ABN naming no service", "write off: the ABN shifts no liability"),
    "CLM-1105": (
        "CO-50 at Medicare, notice dated 123 days ago",
        "appeal with records and LMN: the 120 days run from presumed receipt, 5 days after the notice",
    ),
    "CLM-1106": (
        "CO-45 + PR-2 at the employer plan, Medicare secondary (MSP: working beneficiary)",
        "write off the contractual $90; bill Medicare as secondary with Heartland's adjudication, not the patient",
    ),
    "CLM-1108": (
        "CO-18, the original CLM-1107 accepted and still in process",
        "close as a duplicate of an original in process: no resubmission, the original will be paid or denied",
    ),
    "CLM-1121": (
        "one 835 reverses the $170 payment of a 99214 (CLP02 22) and pays $150 again, PLB FB -$20",
        "post the net change: $20 more contractual (the $70 already posted counts); 99214 is contracted at $150",
    ),
    "CLM-1122": (
        "one 835 reverses the $105 payment of a 99213 and pays $80 again, PLB FB -$25",
        "dispute the take-back as an underpayment: 99213 is contracted at $105; nothing more is written off",
    ),
    "CLM-1123": (
        "a clean 99214 accepted (277CA) 57 days ago, paid at the contracted $150 10 days ago, no interest",
        "post the $90 contractual and request prompt-pay interest: paid 47 days after receipt, the limit is 30",
    ),
    "CLM-1124": (
        "a 99213 served 80 days ago, accepted 34 days ago, paid at the contracted $105 10 days ago",
        "post the $45 contractual only: paid 24 days after receipt, within the 30-day limit (days run from receipt)",
    ),
    "CLM-1125": (
        "a 99213 paid $105 twice (40 and 8 days ago), its $45 CO-45 posted once: a $105 credit balance",
        "hand it to billing to leave to the offset: Heartland's letter DOC-1125 recovers it from a later remittance",
    ),
    "CLM-1126": (
        "a 99214 paid $150 twice (35 and 6 days ago), its $90 CO-45 posted once: a $150 credit balance",
        "hand it to billing to refund: Heartland's letter DOC-1126 asks for a refund; nothing is written off",
    ),
    "CLM-1127": (
        "CO-131 (a negotiated discount) of $900 leaving 29881 at its contracted $900",
        "contractual write-off of $900: CO-131 at the contract is contractual, no approval needed",
    ),
}

_PEOPLE: tuple[tuple[str, str, str, date, str], ...] = (
    ("P-021", "Nora", "Haddad", date(1971, 2, 8), "F"),
    ("P-022", "Omar", "Mensah", date(1952, 6, 19), "M"),
    ("P-023", "Ella", "Novak", date(1949, 10, 3), "F"),
    ("P-024", "Samuel", "Larsen", date(1950, 1, 27), "M"),
    ("P-025", "Yuki", "Tanaka", date(1957, 8, 30), "F"),
)
_PLANS: tuple[tuple[str, str, str, str, date, PayerSequence], ...] = (
    ("COV-021-1", "P-021", "HRTL", "HRT204417781", date(2022, 1, 1), "primary"),
    ("COV-022-1", "P-022", "MCR", "8CV4KD2TM61", date(2017, 7, 1), "primary"),
    ("COV-023-1", "P-023", "MCR", "9DN6PW3QE84", date(2014, 11, 1), "primary"),
    ("COV-024-1", "P-024", "MCR", "2FR8HN5WA36", date(2015, 2, 1), "primary"),
    ("COV-025-1", "P-025", "HRTL", "HRT377120554", date(2019, 3, 1), "primary"),  # her employer's plan
    ("COV-025-2", "P-025", "MCR", "3GT5KM8RX27", date(2022, 8, 1), "secondary"),
)


def _patients() -> list[Patient]:
    return [
        Patient(
            patient_id=pid,
            first_name=first,
            last_name=last,
            birth_date=born,
            gender="F" if gender == "F" else "M",
            address=Address(
                line1=f"{int(pid[2:]) * 17} Oak Avenue", city="Springfield", state="IL", postal_code="62704"
            ),
        )
        for pid, first, last, born, gender in _PEOPLE
    ]


def rule_patients() -> tuple[list[Patient], list[Coverage]]:
    patients = _patients()
    by_id = {p.patient_id: p for p in patients}
    coverages = [
        Coverage(
            coverage_id=cid,
            patient_id=pid,
            payer_id=payer,
            member_id=member,
            group_number=f"GRP-{payer}-01",
            plan_name=f"{payer} standard plan",
            subscriber_first_name=by_id[pid].first_name,
            subscriber_last_name=by_id[pid].last_name,
            subscriber_birth_date=by_id[pid].birth_date,
            relationship="self",
            start_date=start,
            cob_order=order,
        )
        for cid, pid, payer, member, start, order in _PLANS
    ]
    return patients, coverages


def seed_claim(
    claim_id: str,
    patient_id: str,
    payer_id: str,
    member_id: str,
    dx: tuple[str, ...],
    lines: tuple[ServiceLine, ...],
    submitted: date,
    status: ClaimStatus,
) -> Claim:
    patient = next(p for p in _patients() if p.patient_id == patient_id)
    return filed_claim(
        claim_id=claim_id,
        patient=patient,
        payer_id=payer_id,
        member_id=member_id,
        billing_npi=BILLING_NPI,
        rendering_npi=DR_ORTIZ,
        payer_claim_control_number=f"{payer_id}25{claim_id[-4:]}00",
        diagnoses=dx,
        lines=lines,
        submitted=submitted,
        status=status,
    )


def _remit(claim: Claim, produced: date, adjustments: dict[int, list[tuple[str, str, float]]]) -> Remittance:
    payer = next(p for p in (*PAYERS, HEARTLAND) if p.payer_id == claim.payer_id)
    return build_remittance(
        claim,
        remittance_id=f"ERA{claim.claim_id[-4:]}{produced:%m%d}",
        produced=produced,
        filing_indicator=payer.claim_filing_indicator,
        adjustments=adjustments,
    )


def rule_claims() -> tuple[list[Claim], list[Remittance]]:
    claims: list[Claim] = []
    remits: list[Remittance] = []
    # fmt: off
    k = seed_claim("CLM-1101", "P-021", "HRTL", "HRT204417781", ("M23.211",), (line(1, "29881", 1800.0, ago(30), pos="22"),), ago(28), "paid")
    claims.append(k)
    remits.append(_remit(k, ago(12), {1: [("CO", "45", 900.0)]}))
    k = seed_claim("CLM-1102", "P-021", "HRTL", "HRT204417781", ("I10",), (line(1, "99214", 240.0, ago(26)),), ago(25), "paid")
    claims.append(k)
    remits.append(_remit(k, ago(9), {1: [("CO", "45", 120.0)]}))
    for claim_id, patient, member, code, charge in (
        ("CLM-1103", "P-022", "8CV4KD2TM61", "82306", 120.0),
        ("CLM-1104", "P-023", "9DN6PW3QE84", "84443", 85.0),
    ):
        k = seed_claim(claim_id, patient, "MCR", member, ("Z13.29",), (line(1, code, charge, ago(30), ("GA",)),), ago(29), "denied")
        claims.append(k)
        remits.append(_remit(k, ago(14), {1: [("CO", "50", charge)]}))
    k = seed_claim("CLM-1105", "P-024", "MCR", "2FR8HN5WA36", ("M19.011",), (line(1, "20610", 220.0, ago(150), ("RT",)),), ago(148), "denied")
    claims.append(k)
    remits.append(_remit(k, ago(123), {1: [("CO", "50", 220.0)]}))
    k = seed_claim("CLM-1106", "P-025", "HRTL", "HRT377120554", ("I10",), (line(1, "99214", 240.0, ago(20)),), ago(19), "partially_paid")
    claims.append(k)
    remits.append(_remit(k, ago(6), {1: [("CO", "45", 90.0), ("PR", "2", 30.0)]}))
    original = seed_claim("CLM-1107", "P-025", "HRTL", "HRT377120554", ("M54.50",), (line(1, "99213", 150.0, ago(15)),), ago(14), "accepted")
    claims.append(original)
    k = seed_claim("CLM-1108", "P-025", "HRTL", "HRT377120554", ("M54.50",), (line(1, "99213", 150.0, ago(15)),), ago(7), "denied")
    claims.append(k)
    remits.append(_remit(k, ago(2), {1: [("CO", "18", 150.0)]}))
    k = seed_claim("CLM-1121", "P-021", "HRTL", "HRT204417781", ("I10",), (line(1, "99214", 240.0, ago(40)),), ago(39), "partially_paid")
    claims.append(k)
    remits += _reversed(k, _remit(k, ago(25), {1: [("CO", "45", 70.0)]}), {1: [("CO", "45", 90.0)]})
    k = seed_claim("CLM-1122", "P-021", "HRTL", "HRT204417781", ("M54.50",), (line(1, "99213", 150.0, ago(38)),), ago(37), "partially_paid")
    claims.append(k)
    remits += _reversed(k, _remit(k, ago(24), {1: [("CO", "45", 45.0)]}), {1: [("CO", "45", 70.0)]})
    k = seed_claim("CLM-1123", "P-021", "HRTL", "HRT204417781", ("I10",), (line(1, "99214", 240.0, ago(62)),), ago(58), "partially_paid")
    claims.append(k)
    remits.append(_remit(k, ago(10), {1: [("CO", "45", 90.0)]}))
    k = seed_claim("CLM-1124", "P-021", "HRTL", "HRT204417781", ("M54.50",), (line(1, "99213", 150.0, ago(80)),), ago(35), "partially_paid")
    claims.append(k)
    remits.append(_remit(k, ago(10), {1: [("CO", "45", 45.0)]}))
    for claim_id, code, charge, contractual, first, again in (("CLM-1125", "99213", 150.0, 45.0, 40, 8), ("CLM-1126", "99214", 240.0, 90.0, 35, 6)):
        k = seed_claim(claim_id, "P-021", "HRTL", "HRT204417781", ("I10",), (line(1, code, charge, ago(first + 12)),), ago(first + 10), "paid")
        claims.append(k)
        remits += [_remit(k, ago(first), {1: [("CO", "45", contractual)]}), _remit(k, ago(again), {1: [("CO", "45", contractual)]})]
    k = seed_claim("CLM-1127", "P-021", "HRTL", "HRT204417781", ("M23.211",), (line(1, "29881", 1800.0, ago(24), pos="22"),), ago(22), "paid")
    claims.append(k)
    remits.append(_remit(k, ago(7), {1: [("CO", "131", 900.0)]}))
    # fmt: on
    return claims, remits


def _reversed(claim: Claim, earlier: Remittance, corrected: dict[int, list[AdjSpec]]) -> list[Remittance]:
    """The claim's first payment and the 835 three days ago that reverses and corrects it."""
    trace = f"ERA{claim.claim_id[-4:]}R"
    pair = reversal_and_correction(claim, earlier, trace=trace, produced=ago(3), adjustments=corrected)
    return [earlier, *pair]


def rule_write_offs() -> list[WriteOff]:
    """What the practice posted on the first payments the reversals take back."""
    return [
        WriteOff(
            write_off_id=f"WO-{claim_id[-4:]}",
            claim_id=claim_id,
            amount=amount,
            reason_code="contractual",
            note="CO-45 on the first payment",
            posted_date=day,
        )
        for claim_id, amount, day in (
            ("CLM-1121", 70.0, ago(24)),
            ("CLM-1122", 45.0, ago(23)),
            ("CLM-1125", 45.0, ago(39)),
            ("CLM-1126", 90.0, ago(34)),
        )
    ]


def rule_documents() -> list[Document]:
    # fmt: off
    return [
        doc("DOC-1102", "P-021", "CLM-1102", "medical_record", "Visit note: hypertension follow-up", ago(26), "Hypertension follow-up, medication adjusted; moderate complexity visit (99214)."),
        doc("DOC-1103", "P-022", "CLM-1103", "abn_waiver", "Advance Beneficiary Notice (CMS-R-131)", ago(27), "Item: vitamin D, 25-hydroxy level (82306). Reason Medicare may not pay: Medicare does not pay " "for this test for your condition. Option 1 chosen. Signed by the patient three days after the test.", codes=("82306",), reason="Medicare does not pay for this test for your condition"),
        doc("DOC-1104", "P-023", "CLM-1104", "abn_waiver", "ABN (check-in form)", ago(30), "Advance Beneficiary Notice of Noncoverage. Medicare may not pay for all of the services you " "receive today. Option 1 chosen. Signed by the patient at check-in."),
        doc("DOC-1105A", "P-024", "CLM-1105", "medical_record", "Shoulder note", ago(150), "Right shoulder osteoarthritis; 12 weeks of physical therapy failed; corticosteroid injection indicated."),
        doc("DOC-1105B", "P-024", "CLM-1105", "letter_of_medical_necessity", "Letter of medical necessity", ago(149), "Right shoulder injection (20610) is medically necessary after failed conservative care. Signed, Ana Ortiz, MD."),
        doc("DOC-1125", "P-021", "CLM-1125", "other", "Payer correspondence", ago(6), "Re: claim CLM-1125, payer claim control number HRTL25112500. Our records show the claim was paid twice, $105.00 on 2025-05-07 and again on 2025-06-08. We will recover the duplicate payment of $105.00 by offset from a future remittance; no refund is needed."),
        doc("DOC-1126", "P-021", "CLM-1126", "other", "Payer correspondence", ago(4), "Re: claim CLM-1126, payer claim control number HRTL25112600. Our records show the claim was paid twice, $150.00 on 2025-05-12 and again on 2025-06-10. Please refund the duplicate payment of $150.00 within 60 days of this letter; do not wait for an offset."),
    ]
    # fmt: on
