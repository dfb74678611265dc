"""Answers that decide, as edge families: `certificate_decides`, `breach_history_decides`,
`customer_contract_decides` (the policy rules are `envs.credit.diligence`).

Each family adds a fact that makes fund policy ask for one item before deciding, and a hidden
answer drawn from several findings with the same visible signature (twins): the right decision is
the one on the file as the answer leaves it, so no flag decides.

- `certificate_decides`: a bank term loan that stays after closing, with maintenance covenants and
  a cap on what one equity cure may count; its certificate passes, shows a waived miss, a miss the
  lenders did not waive (a default at closing: decline), a miss the sponsor cured with enough
  equity, a cure short of the shortfall or a cure whose permitted part (the cap) falls short
  (both still a default: decline), or certifies more principal than the debt schedule (an
  accordion drawn since), enough to carry total leverage past the next policy level.
- `breach_history_decides`: a sponsor new to the fund; its history is clean, holds a covenant
  reset, a default whose lenders were repaid in full, or a default that cost them money (the
  sponsor's prior default: escalate).
- `customer_contract_decides`: one customer above the policy's share, its contract ending before
  maturity; renewed (a concentration limit), notice given (its EBITDA comes off), or still being
  negotiated (the committee).

Words, ranges, weights and the source are data (`diligence.json`).
"""

from __future__ import annotations

import json
import math
import random
from datetime import date
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from adapters.credit.models import (
    BorrowerAnswer,
    BreachRecord,
    ComplianceCertificate,
    CreditPackage,
    CustomerContract,
    ExistingDebt,
    FundPolicy,
)
from envs.credit.calendar import shift
from envs.credit.diligence import maturity
from envs.credit.ratios import exact, inputs_for, q, ttm_quarters
from envs.credit.worldgen import TODAY

DATA = Path(__file__).with_name("diligence.json")
CERTIFICATE_FINDINGS = (
    "clean",
    "waived",
    "in_default",
    "higher_balance",
    "cured",
    "cure_short",
    "cure_capped",
)
CONTRACT_FINDINGS = ("renewed", "notice_given", "in_negotiation")


@cache
def _data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())
    return found


def _next_level_gap(p: CreditPackage, policy: FundPolicy) -> Fraction:
    """The debt that would carry total leverage to the next policy level above it."""
    e = exact(inputs_for(p, policy))
    levels = sorted(
        q(x)
        for x in (policy.target_total_leverage, policy.escalate_total_leverage, policy.decline_total_leverage)
    )
    above = [x for x in levels if x > e.total_leverage]
    level = above[0] if above else levels[-1]
    return max(level * e.adjusted_ebitda - e.total_debt, e.adjusted_ebitda / 10)


def certificate_decides(
    p: CreditPackage, rng: random.Random, policy: FundPolicy | None = None
) -> CreditPackage:
    """The package with a covenanted loan that stays (its documents cap one equity cure), and its
    certificate as the hidden answer."""
    data = _data()["certificates"]
    policy = policy or FundPolicy()
    facility = p.term_sheet.facility
    outstanding = round(facility.amount * rng.uniform(*data["share_of_facility"]), -3)
    ebitda = round(sum(x.income.ebitda for x in ttm_quarters(p.periods)), -3)
    cap = round(abs(ebitda) * rng.uniform(*data["cure_cap_share"]), -3)
    debt = ExistingDebt(
        debt_id=f"D-{len(p.existing_debt) + 3}",
        lender=rng.choice(data["lenders"]),
        seniority="senior_secured",
        outstanding=outstanding,
        currency=facility.currency,
        rate_pct=round(rng.uniform(*data["rate_pct"]), 1),
        annual_principal=round(outstanding * data["amortisation_share"], -3),
        maintenance_covenants=True,
        max_cure_amount=cap,
    )
    p = p.model_copy(update={"existing_debt": (*p.existing_debt, debt)})
    finding = rng.choice(CERTIFICATE_FINDINGS)
    answer = certificate_answer(p, debt, finding, rng, policy)
    return p.model_copy(update={"answers": (*p.answers, answer)})


def certificate_answer(
    p: CreditPackage, debt: ExistingDebt, finding: str, rng: random.Random, policy: FundPolicy
) -> BorrowerAnswer:
    """The certificate under `debt` (a loan of `p` that stays) as the answer: one of
    `CERTIFICATE_FINDINGS`."""
    data = _data()["certificates"]
    outstanding = debt.outstanding
    cap = debt.max_cure_amount or 0.0
    ebitda = round(sum(x.income.ebitda for x in ttm_quarters(p.periods)), -3)
    certified = outstanding
    if finding == "higher_balance":
        certified = round(
            outstanding + float(_next_level_gap(p, policy)) * rng.uniform(*data["clearance"]), -3
        )
    level = float(rng.choice(data["loan_leverage_levels"]))
    passed = finding in ("clean", "higher_balance")
    # The certified test: below the level when it passed; else short by `needed`, against the cap.
    needed = cap * rng.uniform(*data["needed_of_cap"]["capped" if finding == "cure_capped" else "within"])
    tested_debt = (
        round(ebitda * level * rng.uniform(*data["passing_test_of_level"]), -3)
        if passed
        else round((ebitda + needed) * level, -3)
    )
    exact_needed = max(tested_debt / level - ebitda, 0.0)
    paid = {
        "cured": math.ceil(exact_needed * rng.uniform(*data["paid_of_needed"]["covers"]) / 1000) * 1000,
        "cure_short": math.floor(exact_needed * rng.uniform(*data["paid_of_needed"]["short"]) / 1000) * 1000,
        "cure_capped": math.ceil(exact_needed * rng.uniform(*data["paid_of_needed"]["covers"]) / 1000) * 1000,
    }.get(finding, 0)
    certificate = ComplianceCertificate(
        debt_id=debt.debt_id,
        period_end=ttm_quarters(p.periods)[-1].end,
        outstanding=certified,
        passed=passed,
        waived=finding == "waived",
        leverage_level=level,
        covenant_debt=tested_debt,
        covenant_ebitda=ebitda,
        cure_paid=float(paid),
    )
    return BorrowerAnswer(
        item="compliance_certificates",
        available=True,
        text=data["findings"][finding],
        certificates=(certificate,),
    )


def breach_history_decides(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The package of a sponsor new to the fund, and its breach history as the hidden answer."""
    data = _data()["breach_history"]
    names = sorted(data["findings"])
    finding = data["findings"][rng.choices(names, weights=[data["findings"][n]["weight"] for n in names])[0]]
    records = tuple(
        BreachRecord(
            company=rng.choice(data["companies"]),
            year=int(rng.choice(data["years"])),
            kind=kind,
            resolution=resolution,
            lenders_repaid_in_full=repaid,
        )
        for kind, resolution, repaid in finding["records"]
    )
    answer = BorrowerAnswer(
        item="breach_history", available=True, text=finding["text"], breach_history=records
    )
    sponsor = p.sponsor.model_copy(
        update={"record_on_file": False, "prior_default": False, "default_note": None}
    )
    return p.model_copy(update={"sponsor": sponsor, "answers": (*p.answers, answer)})


def customer_contract_decides(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The package of a concentrated book whose largest contract ends before maturity, and the
    contract as the hidden answer."""
    data = _data()["customer_contracts"]
    share = round(rng.uniform(*data["share_pct"]), 1)
    year, month = shift(TODAY.year, TODAY.month, rng.randint(*data["ends_in_months"]))
    ends = date(year, month, 1)
    finding = rng.choice(CONTRACT_FINDINGS)
    contribution = round(
        p.bridge.reported_ebitda * share / 100 * rng.uniform(*data["contribution_of_share"]), -3
    )
    # Renewed: the new term runs past the facility's maturity.
    term_end = date(maturity(p, TODAY).year + int(data["renewed_years_past_maturity"]), 12, 31)
    contract = CustomerContract(
        customer=rng.choice(data["customers"]),
        status=finding,
        ends=term_end if finding == "renewed" else ends,
        ebitda_contribution=contribution,
    )
    answer = BorrowerAnswer(
        item="customer_contracts", available=True, text=data["findings"][finding], customer_contract=contract
    )
    borrower = p.borrower.model_copy(
        update={"largest_customer_share_pct": share, "largest_customer_contract_ends": ends}
    )
    return p.model_copy(update={"borrower": borrower, "answers": (*p.answers, answer)})
