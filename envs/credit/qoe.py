"""Quality-of-earnings answers that decide: the edge family `qoe_decides`.

The package gets one unsupported add-back large enough that, supported, it would carry total
leverage under the next policy level (`clearance`: how far past the line it reaches), so fund policy
says to ask for the quality-of-earnings report before deciding. The report the borrower sends
changes the file one of four ways (`findings`): it confirms the line in full, ties it to part of
the amount, finds the same charge in the two prior fiscal years (recurring), or supports the line
but restates a TTM quarter's EBITDA down. The right decision is the one on the file as the report
leaves it. Words, shares and the source are data (`qoe.json`).
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from adapters.credit.models import AddBack, BorrowerAnswer, CreditPackage, FundPolicy
from envs.credit.ratios import exact, inputs_for, q, ttm_quarters
from envs.credit.traps import with_addback
from envs.credit.worldgen import TODAY

DATA = Path(__file__).with_name("qoe.json")
FINDINGS = ("confirms", "ties_part", "finds_recurring", "restates_quarter")


@cache
def _data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())
    return found


def _gap(p: CreditPackage, policy: FundPolicy) -> Fraction:
    """The EBITDA that would bring total leverage to the next policy level below it."""
    e = exact(inputs_for(p, policy))
    levels = sorted(q(x) for x in (policy.target_total_leverage, policy.escalate_total_leverage))
    below = [x for x in levels if x < e.total_leverage]
    level = below[-1] if below else levels[0]
    return max(e.total_debt / level - e.adjusted_ebitda, e.adjusted_ebitda / 10)


def qoe_decides(p: CreditPackage, rng: random.Random, policy: FundPolicy | None = None) -> CreditPackage:
    """The package with an unsupported add-back whose support decides, and the report's answer."""
    data = _data()
    policy = policy or FundPolicy()
    category, description = rng.choice(data["lines"])
    amount = round(float(_gap(p, policy)) * rng.uniform(*data["clearance"]), -3)
    line = AddBack(
        addback_id=f"AB-{len(p.bridge.addbacks) + 1}",
        description=description,
        category=category,
        amount=amount,
        supported=False,
    )
    p = with_addback(p, line)
    finding = rng.choice(FINDINGS)
    return p.model_copy(update={"answers": (*p.answers, qoe_answer(p, line, finding, rng))})


def qoe_answer(p: CreditPackage, line: AddBack, finding: str, rng: random.Random) -> BorrowerAnswer:
    """The report's answer on the unsupported `line` of `p`: one of `FINDINGS`."""
    data = _data()
    amount = line.amount
    answer = BorrowerAnswer(item="quality_of_earnings", available=True, text=data["findings"][finding])
    supported = line.model_copy(update={"supported": True})
    if finding == "ties_part":
        tied = round(amount * rng.uniform(*data["tie_share"]), -3)
        answer = answer.model_copy(
            update={"addbacks": (supported.model_copy(update={"support_amount": tied}),)}
        )
    elif finding == "finds_recurring":
        years = sorted((x for x in p.periods if x.kind == "FY"), key=lambda x: x.end)
        booked = tuple(y.label for y in years[:-1])
        answer = answer.model_copy(update={"addbacks": (supported.model_copy(update={"booked_in": booked}),)})
    elif finding == "restates_quarter":
        quarter = ttm_quarters(p.periods)[rng.randint(0, 3)]
        cut = round(quarter.income.ebitda * rng.uniform(*data["restated_share"]), -3)
        restated = quarter.model_copy(
            update={
                "restated": True,
                "restated_on": TODAY - timedelta(days=1),
                "original_ebitda": quarter.income.ebitda,
                "income": quarter.income.model_copy(update={"ebitda": quarter.income.ebitda - cut}),
            }
        )
        answer = answer.model_copy(update={"addbacks": (supported,), "period": restated})
    else:
        answer = answer.model_copy(update={"addbacks": (supported,)})
    return answer
