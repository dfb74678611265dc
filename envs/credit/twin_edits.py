"""Edits that make a credit twin: the package changed only where its flags do not show, so a desk
that underwrites on the flags (`envs.credit.flags.flagged`) reads both twins alike.

Each edit takes a drawn package and returns the twins it can make, named:
- a bridge line's words, history or tie-out (`honest_line`: a trap line made what its flags say;
  `recurs_across_years`, `support_short`, `equity_cure`: an honest line made a trap, as
  `envs.credit.traps` words them);
- the borrower's answers: the sources-and-uses table repays the refinanced loan in full
  (`repaid_in_full`), the restatement reconciliation delivered or still with the auditors, a missing
  quarter to follow, another quality-of-earnings finding, another compliance certificate, another
  breach history, another customer-contract status.
Words and ranges are data (`twin_edits.json`; the trap words are `traps.json`'s).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from adapters.credit.models import (
    AddBack,
    BorrowerAnswer,
    BreachRecord,
    CreditPackage,
    FundPolicy,
)
from envs.credit.addbacks import judge
from envs.credit.cases import reconciliation
from envs.credit.diligence import maturity
from envs.credit.diligence_cases import CERTIFICATE_FINDINGS, certificate_answer
from envs.credit.diligence_cases import DATA as DILIGENCE
from envs.credit.flags import flag_line
from envs.credit.qoe import DATA as QOE
from envs.credit.qoe import FINDINGS as QOE_FINDINGS
from envs.credit.qoe import qoe_answer
from envs.credit.traps import DATA as TRAPS
from envs.credit.worldgen import TODAY, repaying

DATA = Path(__file__).with_name("twin_edits.json")

Edit = Callable[[CreditPackage, random.Random], list[tuple[str, CreditPackage]]]
"""A package → the twins the edit makes of it, each named."""


@cache
def _json(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text())
    return found


def _answer(p: CreditPackage, item: str) -> BorrowerAnswer | None:
    return next((a for a in p.answers if a.item == item), None)


def _swap(p: CreditPackage, answer: BorrowerAnswer) -> CreditPackage:
    answers = tuple(answer if a.item == answer.item else a for a in p.answers)
    return p.model_copy(update={"answers": answers})


def _without(p: CreditPackage, item: str) -> CreditPackage:
    return p.model_copy(update={"answers": tuple(a for a in p.answers if a.item != item)})


def _with_line(p: CreditPackage, line: AddBack) -> CreditPackage:
    lines = tuple(line if a.addback_id == line.addback_id else a for a in p.bridge.addbacks)
    return p.model_copy(update={"bridge": p.bridge.model_copy(update={"addbacks": lines})})


def line_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """Each supported one-off line made honest where it is a trap, or a trap where it is honest."""
    policy = FundPolicy()
    data, traps = _json(DATA), _json(TRAPS)
    years = sorted((x for x in p.periods if x.kind == "FY"), key=lambda x: x.end)
    prior = tuple(y.label for y in years[:-1])
    out: list[tuple[str, CreditPackage]] = []
    for line in p.bridge.addbacks:
        if not line.supported or line.recurring or line.category == "recurring_cost":
            continue
        if judge(line, policy).accepted != judge(flag_line(line), policy).accepted:
            honest = line.model_copy(
                update={
                    "description": rng.choice(data["honest"]),
                    "booked_in": (),
                    "support_amount": None,
                    "category": "non_recurring" if line.category == "equity_cure" else line.category,
                }
            )
            out.append(("honest_line", _with_line(p, honest)))
            continue
        if len(prior) >= policy.recurrence_years:
            out.append(("recurs_across_years", _with_line(p, line.model_copy(update={"booked_in": prior}))))
        tied = round(line.amount * rng.uniform(*data["tie_share"]), -3)
        out.append(("support_short", _with_line(p, line.model_copy(update={"support_amount": tied}))))
        if line.category == "non_recurring":
            cure = rng.choice(traps["traps"]["equity_cure"])
            out.append(("equity_cure", _with_line(p, line.model_copy(update={"description": cure}))))
    return out


def refinancing_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The borrower's sources and uses repaying every loan it names in full."""
    answer = _answer(p, "sources_and_uses")
    if answer is None or answer.sources_and_uses is None:
        return []
    named = {f.debt_id for f in answer.sources_and_uses.uses if f.debt_id}
    loans = [d for d in p.existing_debt if d.debt_id in named]
    table = repaying(p.term_sheet.facility.amount, loans)
    full = answer.model_copy(update={"text": _json(DATA)["repaid_in_full"], "sources_and_uses": table})
    return [("repaid_in_full", _swap(p, full))]


def restatement_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The restatement reconciliation delivered where it was to follow, and the reverse."""
    answer = _answer(p, "restatement_reconciliation")
    restated = next((x for x in p.periods if x.restated), None)
    if answer is None or restated is None:
        return []
    name = "reconciliation_to_follow" if answer.available else "reconciliation_delivered"
    return [(name, _swap(p, reconciliation(restated, available=not answer.available)))]


def missing_quarter_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """A missing quarter the borrower delivers made one still to follow."""
    answer = _answer(p, "missing_quarter")
    if answer is None or not answer.available or answer.period is None:
        return []
    text = _json(DATA)["missing_to_follow"].format(label=answer.period.label)
    later = answer.model_copy(update={"available": False, "text": text, "period": None})
    return [("quarter_to_follow", _swap(p, later))]


def qoe_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The quality-of-earnings report with each other finding on the same line."""
    answer = _answer(p, "quality_of_earnings")
    if answer is None or not answer.addbacks:
        return []
    line = next(a for a in p.bridge.addbacks if a.addback_id == answer.addbacks[0].addback_id)
    texts = _json(QOE)["findings"]
    base = _without(p, "quality_of_earnings")
    return [
        (f"qoe_{finding}", _swap(p, qoe_answer(base, line, finding, rng)))
        for finding in QOE_FINDINGS
        if texts[finding] != answer.text
    ]


def certificate_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The compliance certificate under the same loan with each finding (those that change nothing
    are dropped by the twin filter)."""
    answer = _answer(p, "compliance_certificates")
    if answer is None or not answer.certificates:
        return []
    debt = next(d for d in p.existing_debt if d.debt_id == answer.certificates[0].debt_id)
    base = _without(p, "compliance_certificates")
    policy = FundPolicy()
    return [
        (f"certificate_{finding}", _swap(p, certificate_answer(base, debt, finding, rng, policy)))
        for finding in CERTIFICATE_FINDINGS
    ]


def breach_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The sponsor's breach history with each other finding (same company and year)."""
    answer = _answer(p, "breach_history")
    if answer is None:
        return []
    data = _json(DILIGENCE)["breach_history"]
    mine = answer.breach_history or ()
    out = []
    for name, finding in sorted(data["findings"].items()):
        records = tuple(
            BreachRecord(
                company=mine[0].company if mine else data["companies"][0],
                year=mine[0].year if mine else int(data["years"][0]),
                kind=kind,
                resolution=resolution,
                lenders_repaid_in_full=repaid,
            )
            for kind, resolution, repaid in finding["records"]
        )
        if records != mine:
            edited = answer.model_copy(update={"text": finding["text"], "breach_history": records})
            out.append((f"breach_{name}", _swap(p, edited)))
    return out


def contract_edits(p: CreditPackage, rng: random.Random) -> list[tuple[str, CreditPackage]]:
    """The largest customer's contract with each other status (a renewal runs past maturity;
    otherwise the term ends when the package says)."""
    answer = _answer(p, "customer_contracts")
    contract = answer.customer_contract if answer else None
    ends = p.borrower.largest_customer_contract_ends
    if answer is None or contract is None or ends is None:
        return []
    data = _json(DILIGENCE)["customer_contracts"]
    renewed_to = date(maturity(p, TODAY).year + int(data["renewed_years_past_maturity"]), 12, 31)
    out = []
    for status, text in sorted(data["findings"].items()):
        if status == contract.status:
            continue
        edited = contract.model_copy(
            update={"status": status, "ends": renewed_to if status == "renewed" else ends}
        )
        out.append(
            (
                f"contract_{status}",
                _swap(p, answer.model_copy(update={"text": text, "customer_contract": edited})),
            )
        )
    return out


ANSWER_EDITS: tuple[Edit, ...] = (
    refinancing_edits,
    restatement_edits,
    missing_quarter_edits,
    qoe_edits,
    certificate_edits,
    breach_edits,
    contract_edits,
)
"""Edits of what the borrower answers: tried first, they change what a request returns."""
EDITS: tuple[Edit, ...] = (*ANSWER_EDITS, line_edits)
"""Every twin edit."""
