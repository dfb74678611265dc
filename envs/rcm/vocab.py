"""Seeded vocabularies for generated RCM worlds: payers, procedures, people, places.

Invented but realistic: names and addresses are drawn from short lists, member ids follow each
payer kind's format, NPIs carry a valid Luhn check digit. Payer rules are fixed per payer in the
base distribution, as real payer contracts are; the edge distribution changes them. Commercial
payers carry the 835 plan-type filing indicators (CLP06: 12 PPO, 13 POS, 15 indemnity, HM HMO);
`CI` is an 837 SBR09 value that the 5010 835 does not accept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from adapters.rcm.models import Payer, PayerRules

# fmt: off
PAYERS: tuple[Payer, ...] = (
    Payer(payer_id="MCR", name="Medicare Part B J15", kind="medicare", claim_filing_indicator="MB",
          rules=PayerRules(timely_filing_days=365, appeal_window_days=120, retro_auth_window_days=0,
                           notice_receipt_days=5)),
    Payer(payer_id="MCD", name="State Medicaid", kind="medicaid", claim_filing_indicator="MC",
          rules=PayerRules(timely_filing_days=365, appeal_window_days=90, retro_auth_window_days=0)),
    Payer(payer_id="ACME", name="Acme Health PPO", kind="commercial", claim_filing_indicator="12",
          rules=PayerRules(timely_filing_days=90, appeal_window_days=180, retro_auth_window_days=14,
                           auth_requires_documentation=True)),
    Payer(payer_id="BLUE", name="Bluestone Health Plan", kind="commercial", claim_filing_indicator="13",
          rules=PayerRules(timely_filing_days=180, appeal_window_days=60, retro_auth_window_days=30,
                           auth_decision_by_code={"72148": "pended", "70553": "pended"})),
    Payer(payer_id="CEDR", name="Cedar Mutual Insurance", kind="commercial", claim_filing_indicator="15",
          rules=PayerRules(timely_filing_days=120, appeal_window_days=90, retro_auth_window_days=0)),
    Payer(payer_id="NWND", name="Northwind Health HMO", kind="commercial", claim_filing_indicator="HM",
          rules=PayerRules(timely_filing_days=180, appeal_window_days=180, retro_auth_window_days=30,
                           auth_requires_documentation=True)),
)
# fmt: on
COMMERCIAL = ("ACME", "BLUE", "CEDR", "NWND")


@dataclass(frozen=True)
class Procedure:
    """A billable service: code, what it is, charge range, diagnoses that support it."""

    code: str
    name: str
    low: int
    high: int
    diagnoses: tuple[str, ...]
    place_of_service: str = "11"
    needs_auth: bool = False
    laterality: bool = False


# fmt: off
PROCEDURES: tuple[Procedure, ...] = (
    Procedure("99213", "established patient office visit, low complexity", 110, 180, ("J06.9", "I10", "K21.9")),
    Procedure("99214", "established patient office visit, moderate complexity", 180, 260, ("E11.9", "I10", "M54.50")),
    Procedure("99203", "new patient office visit", 160, 230, ("R10.9", "J45.909")),
    Procedure("99204", "new patient office visit, moderate complexity", 240, 330, ("I25.10", "E78.5")),
    Procedure("20610", "arthrocentesis or injection, major joint", 200, 290, ("M17.11", "M17.12"), needs_auth=True, laterality=True),
    Procedure("11042", "debridement, subcutaneous tissue", 280, 430, ("L97.412", "L98.491"), needs_auth=True),
    Procedure("17110", "destruction of benign lesions", 150, 220, ("B07.8", "L82.1")),
    Procedure("93000", "electrocardiogram with interpretation", 30, 65, ("I48.91", "R00.2")),
    Procedure("72148", "MRI lumbar spine without contrast", 900, 1650, ("M54.16", "M51.26"), "22", True),
    Procedure("70553", "MRI brain with and without contrast", 1400, 2450, ("R51.9", "G43.909"), "22", True),
    Procedure("45378", "diagnostic colonoscopy", 900, 1550, ("K57.30", "R19.5"), "22", True),
    Procedure("29881", "knee arthroscopy with meniscectomy", 2500, 4600, ("M23.221",), "22", True, True),
    Procedure("97110", "therapeutic exercise, 15 minutes", 60, 110, ("M25.561", "M62.81")),
    Procedure("90834", "psychotherapy, 45 minutes", 140, 195, ("F41.1", "F32.1")),
    Procedure("82607", "vitamin B12 level", 60, 115, ("R53.83", "D51.9")),
)
# fmt: on
BY_CODE = {p.code: p for p in PROCEDURES}
OFFICE_VISITS = ("99213", "99214", "99203", "99204")
NEEDS_AUTH = tuple(p.code for p in PROCEDURES if p.needs_auth)

# fmt: off
FIRST_NAMES = (
    "Maria", "James", "Aisha", "Robert", "Linda", "Thomas", "Grace", "Daniel", "Sofia", "Kevin", "Emily",
    "Frank", "Olivia", "Henry", "Nora", "Liam", "Zoe", "Mason", "Ella", "Jack", "Priya", "Mateo", "Hannah",
    "Omar", "Chloe", "Wei", "Fatima", "Lucas", "Isabel", "Noah", "Amara", "Diego", "Yuki", "Samuel", "Leah",
)
LAST_NAMES = (
    "Lopez", "Carter", "Khan", "Chen", "Park", "Reed", "Miller", "Ortiz", "Rossi", "Nguyen", "Davis", "Wilson",
    "Brown", "Adams", "Kim", "Scott", "Hall", "Young", "King", "Wright", "Patel", "Garcia", "Okafor", "Schmidt",
    "Novak", "Haddad", "Tanaka", "Johnson", "Silva", "Murphy", "Cohen", "Mensah", "Larsen", "Dubois",
)
# fmt: on
STREETS = (
    "Elm Street",
    "Oak Avenue",
    "Maple Drive",
    "Cedar Lane",
    "Lakeview Road",
    "Main Street",
    "Hill Court",
)
CITIES = (
    ("Springfield", "IL", "627"),
    ("Columbus", "OH", "432"),
    ("Madison", "WI", "537"),
    ("Albany", "NY", "122"),
)
CLINICIANS = ("Ana Ortiz, MD", "Ben Kaur, MD", "Carla Mendes, DO", "David Osei, MD", "Eva Lindqvist, NP")
PRACTICES = ("Riverside Family Medicine", "Lakeshore Orthopedics", "Maple Grove Health Partners")
MBI_LETTERS = "ACDEFGHJKMNPQRTUVWXY"  # Medicare Beneficiary Identifier letters (no S, L, O, I, B, Z)


def npi(rng: random.Random) -> str:
    """A 10-digit NPI with a valid check digit (Luhn over the 80840 prefix)."""
    body = str(rng.choice("12")) + "".join(str(rng.randrange(10)) for _ in range(8))
    return body + _npi_check_digit(body)


def valid_npi(value: str) -> bool:
    """Whether `value` is an NPI: 10 digits, the first 1 or 2, the last its check digit."""
    return (
        len(value) == 10 and value.isdigit() and value[0] in "12" and value[9] == _npi_check_digit(value[:9])
    )


def _npi_check_digit(body: str) -> str:
    digits = [int(d) for d in "80840" + body]
    total = 0
    for index, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if index % 2 == 0 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return str((10 - total % 10) % 10)


def member_id(rng: random.Random, payer: Payer) -> str:
    """A member id in the format of the payer's kind."""
    if payer.kind == "medicare":
        pattern = "NLANLANLLNN"  # the MBI layout: N digit, L letter, A either
        pick = {"N": "0123456789", "L": MBI_LETTERS, "A": MBI_LETTERS + "0123456789"}
        return rng.choice("123456789") + "".join(rng.choice(pick[c]) for c in pattern[1:])
    if payer.kind == "medicaid":
        return "MCD" + "".join(str(rng.randrange(10)) for _ in range(8))
    return payer.payer_id[:3] + "".join(str(rng.randrange(10)) for _ in range(9))
