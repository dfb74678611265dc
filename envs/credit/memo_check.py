"""A memo is evidence: every ratio it cites matches the computation, and every fact it states is
in the package.

- A ratio is cited where a number written as a multiple (`4.35x`) follows its name with no other
  number between (`senior leverage 4.00x`, `FCCR of 1.9x`); a level the memo compares with
  (`at most 5.0x`, `covenant at 6.25x`, `target 5.0x`) is not a citation. Each citation must equal
  the figure computed from the package to the decimals it is written with (`4.3x` for 4.2519 is
  right, `4.30x` is not); liquidity likewise, as an amount.
- Facts a memo may state only when the package holds them: a waiver, a renewal, a cure (a cure
  right on the term sheet counts), an amendment, a committee's approval. A denial (`no waiver`, `not renewed`) states nothing.
  What an answer establishes is read from its structure, not its words: a waiver only from a
  certificate whose failed test was waived, a renewal only from a renewed customer contract (an
  answer's text such as `will not renew` grants nothing).
- Claims an answer contradicts: the existing debt in compliance (`in compliance`, `every test
  passed`, `no breach`) where a delivered certificate shows a failed test (not cured); a test
  `cured` where the sponsor's cure fell short of the shortfall or of what may count; the sponsor's record
  clean (`no prior default`, `clean record`, `never defaulted`) where its breach history holds a
  default that cost lenders money.
- An escalation memo names each reason it escalates for; a memo on an approval that asks for more
  equity cites the FCCR that decides it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from adapters.credit.answers import answered_all
from adapters.credit.models import CreditPackage, FundPolicy
from envs.credit.diligence import cured, in_default, prior_default
from envs.credit.ratios import IncompleteTtm, exact, inputs_for

NUMBER = r"(?P<num>-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\s*(?P<unit>x\b|%|bn\b|billion\b|mm\b|m\b|million\b|k\b|thousand\b)?"
"""A written number and what follows it."""
GAP = r"(?P<gap>[^\d\n]{0,40}?)"
"""Words between a figure's name and its number (no other number)."""
RATIO_NAMES: dict[str, str] = {
    "total_leverage": r"(?<!senior )(?<!secured )(?<!net )leverage(?: ratio)?",
    "senior_leverage": r"senior (?:secured )?leverage(?: ratio)?",
    "interest_coverage": r"interest cover(?:age)?(?: ratio)?|\bICR\b",
    "fixed_charge_coverage": r"fixed[- ]charge cover(?:age)?(?: ratio)?|\bFCCR\b",
    "dscr": r"\bDSCR\b|debt[- ]service cover(?:age)?(?: ratio)?",
}
LEVEL_WORDS = re.compile(
    r"\b(?:at most|at least|not (?:to )?exceed|above|below|under|over|target|level|limit|maximum|minimum"
    r"|max|min|covenant|threshold|policy|cap|floor|from|to)\b",
    re.IGNORECASE,
)
SCALE = {"bn": 1e9, "billion": 1e9, "mm": 1e6, "m": 1e6, "million": 1e6, "k": 1e3, "thousand": 1e3}
FACTS: dict[str, re.Pattern[str]] = {
    "waiver": re.compile(r"\bwaive(?:r|rs|d)?\b", re.IGNORECASE),
    "renewal": re.compile(r"\brenew(?:al|als|ed|s)?\b", re.IGNORECASE),
    "cure": re.compile(r"\bcure[ds]?\b", re.IGNORECASE),
    "amendment": re.compile(r"\bamend(?:ment|ments|ed)?\b", re.IGNORECASE),
    "committee approval": re.compile(r"\b(?:committee|IC)\b[^.]{0,25}\bapprov", re.IGNORECASE),
}
CONTRADICTED: dict[str, re.Pattern[str]] = {
    "compliance": re.compile(
        r"\bin (?:full )?compliance\b|\bcompliant\b|\b(?:every|all)(?: covenant)? tests? (?:were |was )?passed\b"
        r"|\btests? (?:were |was )?(?:all )?passed\b|\bno (?:covenant )?breach(?:es)?\b",
        re.IGNORECASE,
    ),
    "cured": re.compile(
        r"(?<!not )(?<!never )\bcured\b|\bcure (?:fixed|remedied|covered)|\bremedied\b", re.IGNORECASE
    ),
    "clean record": re.compile(
        r"\bno (?:prior |previous |payment )?defaults?\b|\bclean (?:track )?record\b|\bnever defaulted\b",
        re.IGNORECASE,
    ),
}
"""Claims a memo may not make where an answer shows the opposite."""
DENIAL = re.compile(r"\b(?:no|not|nor|without|never|absent|neither)\b[^.]*$", re.IGNORECASE)
DENIAL_REACH = 40
"""How far before a fact word a denial may stand (same sentence)."""
REASON_WORDS: dict[str, re.Pattern[str]] = {
    "leverage_above_policy": re.compile(
        r"leverage (?:is )?(?:above|over|beyond|exceeds?)|(?:above|over|beyond|exceeds?) (?:the )?(?:fund'?s? )?policy",
        re.IGNORECASE,
    ),
    "thin_covenant_headroom": re.compile(
        r"\b(?:thin|tight|narrow|limited|insufficient)\b[^.]{0,30}headroom|headroom[^.]{0,30}\b(?:thin|tight|under|below|only)\b",
        re.IGNORECASE,
    ),
    "sponsor_prior_default": re.compile(r"default", re.IGNORECASE),
    "covenant_lite": re.compile(r"covenant[- ]lite|no maintenance covenant", re.IGNORECASE),
    "customer_concentration": re.compile(r"concentrat|largest customer", re.IGNORECASE),
    "non_positive_ebitda": re.compile(r"non[- ]positive|negative|pro[- ]forma|\bloss", re.IGNORECASE),
    "addback_dependent_earnings": re.compile(r"add-?backs?", re.IGNORECASE),
}


def half_unit(number: str) -> float:
    """Half a unit of the last decimal written: the rounding a written figure carries."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    return 0.5 / 10.0**decimals


def cited_multiples(text: str, name: str) -> list[str]:
    """The multiples cited right after `name` (levels compared with left out)."""
    out = []
    for m in re.finditer(f"(?:{name}){GAP}{NUMBER}", text, re.IGNORECASE):
        if (m.group("unit") or "").lower() == "x" and not LEVEL_WORDS.search(m.group("gap")):
            out.append(m.group("num"))
    return out


def wrong_ratio(text: str, computed: Mapping[str, float]) -> str | None:
    """The first ratio cited that the computation does not give, or None."""
    for figure, name in RATIO_NAMES.items():
        want = computed.get(figure)
        if want is None:
            continue
        for number in cited_multiples(text, name):
            if abs(float(number.replace(",", "")) - want) > half_unit(number) + 1e-9:
                return f"the memo cites {figure.replace('_', ' ')} {number}x; the package gives {want:.4f}x"
    return None


def wrong_liquidity(text: str, computed: float | None) -> str | None:
    """Liquidity cited as an amount other than the computed one, or None."""
    if computed is None:
        return None
    for m in re.finditer(rf"liquidity{GAP}{NUMBER}", text, re.IGNORECASE):
        unit = (m.group("unit") or "").lower()
        if unit in ("x", "%") or LEVEL_WORDS.search(m.group("gap")):
            continue
        number = m.group("num").replace(",", "")
        scale = SCALE.get(unit, 1.0)
        if abs(float(number) * scale - computed) > half_unit(number) * scale + 1e-6:
            return f"the memo cites liquidity {m.group('num')}{unit}; the package gives {computed:,.0f}"
    return None


def invented_fact(text: str, package_text: str) -> str | None:
    """A fact the memo states that the package does not hold, or None."""
    for fact, pattern in FACTS.items():
        if pattern.search(package_text):
            continue
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - DENIAL_REACH) : m.start()]
            if not DENIAL.search(before):
                return f"the memo states a {fact} the package does not hold ({m.group(0)!r})"
    return None


def missing_reason(text: str, reasons: list[Any]) -> str | None:
    """An escalation reason the memo does not name, or None."""
    for reason in reasons:
        pattern = REASON_WORDS.get(str(reason))
        if pattern is not None and not pattern.search(text):
            return f"the memo does not say why: {str(reason).replace('_', ' ')}"
    return None


def contradicted(text: str, package: CreditPackage) -> str | None:
    """A claim the memo makes that a delivered answer contradicts, or None."""
    failed = [
        d
        for d in package.existing_debt
        if d.certificate is not None and not (d.certificate.passed or cured(d))
    ]
    if failed and (m := CONTRADICTED["compliance"].search(text)):
        return f"the memo says {m.group(0)!r}; the compliance certificate for {failed[0].debt_id} shows a failed test"
    defaulted = in_default(package)
    if defaulted and (m := CONTRADICTED["cured"].search(text)):
        return f"the memo says {m.group(0)!r}; the certificate for {defaulted[0].debt_id} shows a test still failed"
    if prior_default(package.sponsor) and (m := CONTRADICTED["clean record"].search(text)):
        return f"the memo says {m.group(0)!r}; the sponsor's breach history holds a default that cost lenders money"
    return None


def stated_text(raw: Any) -> str:
    """What the package states, for the facts a memo may cite: the package less the borrower's
    answers (their words grant nothing; what they deliver is in the package's structure), with a
    certificate's waiver and a renewed contract in words."""
    if not isinstance(raw, Mapping):
        return str(raw)
    shown = {k: v for k, v in raw.items() if k not in ("answers", "received_answers")}
    debts = []
    words = []
    for d in shown.get("existing_debt", []) or []:
        cert = d.get("certificate") if isinstance(d, Mapping) else None
        if isinstance(cert, Mapping):
            words += [" a waiver"] if cert.get("waived") else []
            words += [" a cure"] if cert.get("cure_paid") else []
            d = {**d, "certificate": {k: v for k, v in cert.items() if k != "waived"}}
        debts.append(d)
    shown["existing_debt"] = debts
    return str(shown) + "".join(words)


def cure_rights_text(raw: Any) -> str:
    """The package's equity cure rights in words (its fields name them `equity_cures`), so a memo
    may state a cure right the term sheet grants."""
    covenants = raw.get("term_sheet", {}).get("covenants", []) if isinstance(raw, Mapping) else []
    granted = [c for c in covenants if isinstance(c, Mapping) and int(c.get("equity_cures") or 0) > 0]
    return " equity cure rights" if granted else ""


def computed_figures(world: Mapping[str, Any], package_id: str) -> dict[str, float]:
    """The figures the package gives (with everything its answers deliver), unrounded; empty
    when the trailing twelve months cannot be built."""
    raw = world.get("packages", {}).get(package_id)
    if raw is None:
        return {}
    package = CreditPackage.model_validate(raw)
    policy = FundPolicy.model_validate(world.get("policy", {}))
    worked = answered_all(package, tuple(a.item for a in package.answers))
    try:
        e = exact(inputs_for(worked, policy))
    except IncompleteTtm:
        return {}
    return {
        "total_leverage": float(e.total_leverage),
        "senior_leverage": float(e.senior_leverage),
        "interest_coverage": float(e.interest_coverage),
        "fixed_charge_coverage": float(e.fixed_charge_coverage),
        "dscr": float(e.dscr),
        "liquidity": float(e.liquidity),
    }


def evidence_problem(world: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """Why the memo of a recording or escalating call is not evidence, or None."""
    text = str(arguments.get("memo", ""))
    package_id = str(arguments.get("package_id", ""))
    computed = computed_figures(world, package_id)
    liquidity = computed.pop("liquidity", None)
    raw = world.get("packages", {}).get(package_id, "")
    claim = None
    if isinstance(raw, Mapping):
        # The file as every answer leaves it (as the figures are computed).
        package = CreditPackage.model_validate(raw)
        package = answered_all(package, tuple(a.item for a in package.answers))
        raw = package.model_dump(mode="json")
        claim = contradicted(text, package)
    package_text = stated_text(raw) + cure_rights_text(raw)
    conditions = arguments.get("conditions") or []
    kinds = {c.get("kind") for c in conditions if isinstance(c, Mapping)}
    if "more_equity" in kinds and not cited_multiples(text, RATIO_NAMES["fixed_charge_coverage"]):
        return "the memo asks for more equity without citing the FCCR that decides it"
    reasons = arguments.get("reasons")
    return (
        wrong_ratio(text, computed)
        or wrong_liquidity(text, liquidity)
        or invented_fact(text, package_text)
        or claim
        or (missing_reason(text, reasons) if isinstance(reasons, list) else None)
    )
