"""Which seed claim exercises which CARC row of the domain brief, and its correct resolution."""

from __future__ import annotations

# claim id → (CARC row of the brief, correct resolution), for tests and docs.
SEED_CASES: dict[str, tuple[str, str]] = {
    "CLM-1001": ("CO-16 N290", "replacement with the rendering NPI from the medical record"),
    "CLM-1002": ("CO-4 N822", "replacement with modifier 95 on the telehealth line"),
    "CLM-1003": ("CO-15 M62", "replacement with the auth number on file (PA778812)"),
    "CLM-1004": (
        "CO-197",
        "retro-authorization (BLUE allows 30 days), then replacement with the auth number",
    ),
    "CLM-1005": ("CO-197", "no retro window at MCD: appeal with the LMN, or escalate the $1,250 write-off"),
    "CLM-1006": ("CO-29", "appeal citing the 277CA that accepted the claim within the 90-day limit"),
    "CLM-1007": ("CO-29", "the 277CA acceptance came after the 90-day limit: write off"),
    "CLM-1008": ("CO-18", "original CLM-0908 was paid: close, no resubmission"),
    "CLM-1009": ("CO-18", "original CLM-0909 was denied CO-16 M51: work the original"),
    "CLM-1010": ("CO-22", "Acme is primary: bill Acme; Medicare becomes secondary"),
    "CLM-1011": ("CO-27", "coverage ended; Bluestone covers the date: bill Bluestone"),
    "CLM-1012": ("PR-27", "coverage ended, no other coverage: patient responsibility"),
    "CLM-1013": ("CO-31", "member id transposed: eligibility by demographics, replacement with ACM310552"),
    "CLM-1014": ("CO-50", "records support necessity: appeal with records and LMN"),
    "CLM-1015": ("CO-50 GA", "signed ABN on file: patient responsibility"),
    "CLM-1016": ("CO-97", "distinct site documented: replacement with modifier 59 on line 2"),
    "CLM-1017": ("CO-109", "Medicaid covers the patient: bill MCD"),
    "CLM-1018": ("CO-45 + PR-2", "not a denial: write off the contractual amount, bill the coinsurance"),
    "CLM-1019": ("PR-1", "deductible: patient responsibility"),
    "CLM-1020": ("PR-3", "copay: patient responsibility"),
    "CLM-1021": ("CO-B7", "rendering provider not certified: escalate to credentialing"),
    "CLM-1022": ("CO-50", "no support, no ABN: write off"),
    "CLM-1023": ("CO-50", "appeal window closed: write off or escalate"),
}

# Claims the payer never adjudicated, whose fix is a new claim (frequency 1). Kept apart from
# `SEED_CASES`, which is the demo's denial queue.
SEED_RETURNED_CASES: dict[str, tuple[str, str]] = {
    "CLM-1024": ("CO-16 M76 MA130", "unprocessable: new claim (frequency 1) with diagnosis R53.83"),
    "CLM-1025": ("277CA A7", "rejected for the member id: new claim with ACM100234"),
}
