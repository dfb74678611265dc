"""Equity cure rights on the term sheet: the edge family `cure_rights`.

Each covenant gets a right to be cured with sponsor equity a number of times over the facility's
life: within the policy's limit, or (with probability `share_beyond`) beyond it, which fund policy
tightens before approval (a `tighter_covenant` condition: a cure limit). The counts and the source
are data (`cures.json`).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from adapters.credit.models import CreditPackage

DATA = Path(__file__).with_name("cures.json")


@cache
def _data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())
    return found


def leverage_cure(debt: Fraction, ebitda: Fraction, level: Fraction) -> Fraction:
    """The EBITDA (sponsor cash counted as EBITDA for the test) that brings debt / EBITDA down to
    `level`; 0 when the test passes."""
    return max(debt / level - ebitda, Fraction(0))


def cure_rights(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The package whose covenants may each be cured a drawn number of times."""
    data = _data()
    cures = int(rng.choice(data["beyond"] if rng.random() < data["share_beyond"] else data["within"]))
    covenants = tuple(c.model_copy(update={"equity_cures": cures}) for c in p.term_sheet.covenants)
    return p.model_copy(update={"term_sheet": p.term_sheet.model_copy(update={"covenants": covenants})})
