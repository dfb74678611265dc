"""Grounding: whether a text the agent writes rests on the case in front of it.

A keyword floor passes a letter that names the right words; grounding reads what the words say
against the world. A text is grounded when it is
- specific: it cites a fact of this case beyond the id of the record it is about (a reason code,
  a date, an amount, a document, another record's id), and, where the text argues from evidence,
  a value the evidence reads returned before it was written;
- consistent: every date and amount it cites is one the case has (or one a rule's day count leads
  to), and nothing it asserts (an approval, an authorization on file) is contradicted by the
  world;
- addressed: it names no party other than the one it goes to, and does not talk to its grader;
- minimum necessary: it carries no identifier the work does not need (an SSN).

Pure logic over a `CaseFacts` a domain builds from its world and the reads of the trajectory, and
a `Phrasebook` the domain keeps as data. Every problem is a sentence naming what fell short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

CENT = Decimal("0.01")
_NEGATION = re.compile(r"\b(?:no|not|never|without|absent|lacks?|missing|nor|none|neither)\b", re.IGNORECASE)
_NEGATION_REACH = 30
"""Characters before an assertion in which a negation word makes it a denial, not a claim."""
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_US = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_LONG = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})\b", re.IGNORECASE)
_AMOUNT = re.compile(r"\$\s?-?\(?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?\)?")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]")
_WORD = re.compile(r"[A-Za-z]{6,}")
_DAYS = re.compile(r"\b(\d{1,4})[- ]days?\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
EVIDENCE_WORDS = 2
"""Distinctive words of what was read that a text restates to count as resting on it."""


@dataclass(frozen=True)
class Assertion:
    """A phrase that claims a fact, and the fact that must hold for the claim to stand."""

    name: str
    """What the phrase claims, in words (`a supervisor's approval`)."""
    pattern: re.Pattern[str]
    """The phrase."""
    requires: str
    """The key of the established fact it needs (`CaseFacts.established`)."""


@dataclass(frozen=True)
class Phrasebook:
    """A domain's phrases, kept as data: what texts assert, and what no text may say."""

    assertions: tuple[Assertion, ...] = ()
    to_grader: tuple[re.Pattern[str], ...] = ()
    """Text addressed to whoever scores the work rather than to its reader."""
    identifiers: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """(name, pattern) of identifiers no text needs (an SSN)."""
    generic_party_words: frozenset[str] = frozenset()
    """Words of party names that name no one in particular (`Health`, `Plan`)."""
    common_words: frozenset[str] = frozenset()
    """Words any text of the domain may use, which restate no evidence (`medical`, `attached`)."""
    common_tokens: frozenset[str] = frozenset()
    """Code-like words that name a kind of thing, not a fact of a case (`277CA`, `835`)."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Phrasebook:
        """The phrasebook from its data file's JSON."""
        return cls(
            assertions=tuple(
                Assertion(a["name"], re.compile(a["pattern"], re.IGNORECASE), a["requires"])
                for a in data.get("assertions", ())
            ),
            to_grader=tuple(re.compile(p, re.IGNORECASE) for p in data.get("to_grader", ())),
            identifiers=tuple((i["name"], re.compile(i["pattern"])) for i in data.get("identifiers", ())),
            generic_party_words=frozenset(w.lower() for w in data.get("generic_party_words", ())),
            common_words=frozenset(w.lower() for w in data.get("common_words", ())),
            common_tokens=frozenset(t.upper() for t in data.get("common_tokens", ())),
        )


@dataclass(frozen=True)
class CaseFacts:
    """What a text about one record may cite, built by the domain at the moment it is written."""

    identity: frozenset[str]
    """The record's own ids (they name it, they say nothing about it)."""
    tokens: frozenset[str] = frozenset()
    """Code-like values of the case: reason and remark codes, ids, procedure and diagnosis codes."""
    evidence_tokens: frozenset[str] = frozenset()
    """Code-like values the evidence reads returned before the text was written."""
    dates: frozenset[date] = frozenset()
    """Dates of the case (and of what was read)."""
    evidence_dates: frozenset[date] = frozenset()
    anchors: frozenset[date] = frozenset()
    """Dates a rule counts days from (a date of service, a notice, a receipt)."""
    day_counts: frozenset[int] = frozenset()
    """Day counts of the rules in play: a date this many days after an anchor is one too (a
    deadline, a presumed receipt)."""
    amounts: frozenset[Decimal] = frozenset()
    """Amounts of the case, as cents (absolute values)."""
    evidence_amounts: frozenset[Decimal] = frozenset()
    evidence_day_counts: frozenset[int] = frozenset()
    """Day counts (a filing limit, a window) only the evidence reads returned."""
    evidence_words: frozenset[str] = frozenset()
    """Words (six letters or more, lower case) of the documents the evidence reads returned."""
    established: frozenset[str] = frozenset()
    """Facts the world establishes (keys of `Assertion.requires`)."""
    parties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Party id → the names a text may call it by."""
    cited_forms: tuple[re.Pattern[str], ...] = ()
    """Patterns of the case's facts written in their own notation (`CO-16`, `CARC 16`)."""


# -- reading a text ------------------------------------------------------------------------------
def cited_dates(text: str) -> list[date]:
    """The calendar dates a text writes (ISO, m/d/yyyy, or `June 2, 2025`); impossible ones skipped."""
    found: list[date] = []
    for match in _ISO.finditer(text):
        found += _date(int(match[1]), int(match[2]), int(match[3]))
    for match in _US.finditer(text):
        found += _date(int(match[3]), int(match[1]), int(match[2]))
    for match in _LONG.finditer(text):
        found += _date(int(match[3]), _MONTHS.index(match[1].lower()) + 1, int(match[2]))
    return found


def _date(year: int, month: int, day: int) -> list[date]:
    try:
        return [date(year, month, day)]
    except ValueError:
        return []


def cited_amounts(text: str) -> list[Decimal]:
    """The dollar amounts a text writes, as absolute values in cents (`$1,250`, `-$42.50`)."""
    return [
        Decimal(match[1].replace(",", "") + (match[2] or "")).quantize(CENT)
        for match in _AMOUNT.finditer(text)
    ]


def cited_day_counts(text: str) -> set[int]:
    """The day counts a text writes (`90 days`, `a 14-day window`)."""
    return {int(m[1]) for m in _DAYS.finditer(text)}


def cited_tokens(text: str) -> set[str]:
    """The code-like words of a text (each carries a digit), upper-cased, trailing dots dropped."""
    return {
        t.upper().rstrip(".")
        for t in _TOKEN.findall(text)
        if any(c.isdigit() for c in t) and not _ISO.fullmatch(t)
    }


def cited_words(text: str) -> set[str]:
    """The words of six letters or more of a text, lower case."""
    return {w.lower() for w in _WORD.findall(text)}


def code_like(value: str) -> bool:
    """Whether a value can stand as a case fact when a text cites it: it carries a digit, and a
    number alone is long enough not to be any count (three characters or more)."""
    return " " not in value and _DIGIT.search(value) is not None and (len(value) >= 3 or not value.isdigit())


# -- facts of a world ----------------------------------------------------------------------------
def leaves(value: Any) -> list[Any]:
    """Every scalar of a JSON value."""
    out: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif item is not None:
            out.append(item)
    return out


@dataclass
class Harvest:
    """Tokens, dates and amounts gathered from JSON values."""

    tokens: set[str] = field(default_factory=set)
    dates: set[date] = field(default_factory=set)
    amounts: set[Decimal] = field(default_factory=set)
    words: set[str] = field(default_factory=set)

    def add(self, value: Any) -> Harvest:
        """Gather the scalars of `value` (strings as tokens or dates, numbers as amounts)."""
        for leaf in leaves(value):
            kind = type(leaf)
            if kind is bool:
                continue
            if kind is int or kind is float:
                self.amounts.add(as_cents(leaf))
                continue
            text = leaf if kind is str else str(leaf)
            if len(text) >= 8 and ("-" in text or "/" in text or " " in text):
                self.dates.update(cited_dates(text))
            if code_like(text) and len(text) <= 40:
                self.tokens.add(text.upper())
            elif len(text) > 40:
                self.tokens.update(t for t in cited_tokens(text) if code_like(t))
                self.amounts.update(cited_amounts(text))
                self.words.update(cited_words(text))
        return self


def as_cents(value: float | int | Decimal | str) -> Decimal:
    """An amount as an absolute value in cents."""
    try:
        return abs(Decimal(str(value))).quantize(CENT)
    except InvalidOperation:
        return Decimal(0)


def combined(amounts: Iterable[Decimal]) -> frozenset[Decimal]:
    """The amounts, and each sum and difference of two of them (an amount owed, a shortfall)."""
    base = sorted({a for a in amounts if a > 0})
    out = set(base)
    for i, a in enumerate(base):
        for b in base[i + 1 :]:
            out.add(a + b)
            out.add(b - a)
    return frozenset(out)


# -- the checks ----------------------------------------------------------------------------------
def specific_problem(
    text: str, case: CaseFacts, *, from_evidence: bool = False, common: frozenset[str] = frozenset()
) -> str | None:
    """Why the text says nothing about this case, or None. With `from_evidence`, it must also cite
    a value one of the evidence reads returned, or restate what a document read says (two of its
    distinctive words, `common` ones aside): the argument rests on what was read."""
    tokens = cited_tokens(text) - {i.upper() for i in case.identity}
    dates = set(cited_dates(text))
    amounts = set(cited_amounts(text))
    cited = (
        bool(tokens & case.tokens)
        or any(p.search(text) for p in case.cited_forms)
        or bool(dates & known_dates(case))
        or bool(amounts & case.amounts)
    )
    if not cited:
        return (
            "it cites no fact of this case beyond its id (no reason code, date, amount, document or "
            "record the case has): text that could be sent for any case"
        )
    restated = (cited_words(text) & case.evidence_words) - common
    if from_evidence and not (
        tokens & case.evidence_tokens
        or dates & case.evidence_dates
        or amounts & case.evidence_amounts
        or cited_day_counts(text) & case.evidence_day_counts
        or len(restated) >= EVIDENCE_WORDS
    ):
        return (
            "it cites nothing the evidence reads returned (a date, a control or authorization number, "
            "a document, a contracted rate): the argument does not rest on what was read"
        )
    return None


def known_dates(case: CaseFacts) -> set[date]:
    """The case's dates, and those a rule's day count after an anchor (a deadline, a receipt date)."""
    return set(case.dates) | {day + timedelta(days=n) for day in case.anchors for n in case.day_counts}


def consistency_problem(text: str, case: CaseFacts, book: Phrasebook) -> str | None:
    """Why the text contradicts the world, or None: a date or amount the case does not have, or an
    assertion (an approval, an authorization) no record backs."""
    for assertion in book.assertions:
        for match in assertion.pattern.finditer(text):
            before = text[max(0, match.start() - _NEGATION_REACH) : match.start()]
            if _NEGATION.search(before) or _NEGATION.search(match.group(0)):
                continue
            if assertion.requires not in case.established:
                return f"it asserts {assertion.name} ({match.group(0)!r}), which no record shows"
    dates = known_dates(case)
    wrong = sorted({d for d in cited_dates(text) if d not in dates})
    if wrong:
        return f"it cites {', '.join(d.isoformat() for d in wrong)}, a date the case does not have"
    amounts = sorted({a for a in cited_amounts(text) if a not in case.amounts})
    if amounts:
        return f"it cites ${', $'.join(f'{a:,.2f}' for a in amounts)}, an amount the case does not have"
    return None


def addressee_problem(text: str, case: CaseFacts, book: Phrasebook, to: str | None) -> str | None:
    """Why the text is not addressed to its reader, or None: it talks to its grader, or (when it
    goes to party `to`) it names another party as the one it addresses."""
    for pattern in book.to_grader:
        match = pattern.search(text)
        if match:
            return f"it addresses whoever scores the work ({match.group(0)!r}), not its reader"
    if to is None:
        return None
    for party, names in case.parties.items():
        if party == to:
            continue
        for name in names:
            if re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE):
                return f"it goes to {to} but names {name} ({party}), another party"
    return None


def identifier_problem(text: str, book: Phrasebook) -> str | None:
    """Why the text carries an identifier the work does not need, or None."""
    for name, pattern in book.identifiers:
        if pattern.search(text):
            return f"it carries {name}, which no reader of it needs (minimum necessary)"
    return None


def party_names(name: str, party_id: str, generic: frozenset[str]) -> frozenset[str]:
    """The names a text may call a party by: its id and the distinctive words of its name."""
    words = {w for w in re.findall(r"[A-Za-z][A-Za-z'-]+", name) if w.lower() not in generic and len(w) > 2}
    return frozenset({party_id, *words})
