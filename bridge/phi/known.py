"""`KnownPhi`: the PHI values an episode has shown, found again in free text in any usual form.

Every value the recorder tokenised at a PHI-marked position (and every leaf of an undeclared key)
is learned here. A value with a digit (an id, a phone number, a date) matches with or without the
separators people put in (`1EG4-TE5-MK72`, `(217) 555 0143`, a phone number with or without its
country code); a value of words (a name, a city, a street) matches case-insensitively, with or
without its accents, with any punctuation or spacing between its words. ISO dates are also
learned in their US and spelled-out forms. A person's name is also found by its nicknames and
short forms (`bridge.phi.variants`), written capitalised. Values under three letters or digits (a
gender, a state) are not learned: on their own they identify nobody and would match everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any

from bridge.phi.names import lexicon
from bridge.phi.spelling import fold
from bridge.phi.variants import name_variants

MIN_CHARS = 3
_SEPARATORS = r"[\s().\-/_,]*"
_WORD_GAP = r"[\W_]+"
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NAME_VALUE = re.compile(r"^[^\W\d_]+(?:[\s'\u2019.-]+[^\W\d_]+){0,3}$")
_NAME_PART = re.compile(r"[^\W\d_]{3,}")


def _name_forms(text: str) -> set[str]:
    """The nicknames and short forms of a value that is a person's name (one to four words, one
    of them a name of the lexicon), capitalised and in capitals as a name is written. A value of
    one word may be a town's (`Columbus`): only the table's nicknames of it, no short forms."""
    if not _NAME_VALUE.match(text):
        return set()
    parts = _NAME_PART.findall(text)
    lex = lexicon()
    if not any(lex.kind(part) == "strong" for part in parts):
        return set()
    forms = {v for part in parts for v in name_variants(part, cut=len(parts) > 1)}
    return {form for v in forms for form in (v.capitalize(), v.upper())}


def leaves(value: Any) -> Iterator[str]:
    """Every string and integer inside `value` (dicts by their values, lists and tuples), as text."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, str | int) and not isinstance(value, bool):
        yield str(value)


def _date_forms(text: str) -> list[str]:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return []
    return [
        f"{day.month:02d}/{day.day:02d}/{day.year}",
        f"{day.month}/{day.day}/{day.year}",
        f"{day.month:02d}/{day.day:02d}/{day.year % 100:02d}",
        f"{day:%B} {day.day}, {day.year}",
        f"{day.day} {day:%B} {day.year}",
        f"{day:%b} {day.day}, {day.year}",
        f"{day.day:02d} {day:%b} {day.year}",
        f"{day.day} {day:%b} {day.year}",
    ]


def _phone_forms(text: str) -> list[str]:
    digits = "".join(_ALNUM.findall(text))
    if not digits.isdigit():
        return []
    if len(digits) == 11 and digits.startswith("1"):
        return [digits[1:]]
    return ["1" + digits] if len(digits) == 10 else []


def _pattern(value: str) -> str | None:
    """The regex of one value in its usual forms; None when it is too short to learn."""
    chunks = _ALNUM.findall(fold(value))
    chars = "".join(chunks)
    if len(chars) < MIN_CHARS:
        return None
    if any(c.isdigit() for c in chars):
        body = _SEPARATORS.join(re.escape(c) for c in chars)
    else:
        body = _WORD_GAP.join(re.escape(c) for c in chunks)
    return rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])"


class KnownPhi:
    """The PHI values one episode has shown, as one compiled pattern (rebuilt when it grows)."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._compiled: re.Pattern[str] | None = None
        self._nicknames: set[str] = set()
        self._nicknames_compiled: re.Pattern[str] | None = None

    def learn(self, value: Any) -> None:
        """Remember every string or integer inside `value` (a scalar, a dict, a list)."""
        for text in leaves(value):
            text = text.strip()
            forms = [text, *(_date_forms(text) if _ISO_DATE.match(text) else []), *_phone_forms(text)]
            fresh = {form for form in forms if form not in self._values}
            if fresh:
                self._values |= fresh
                self._compiled = None
                nicknames = _name_forms(text) - self._nicknames
                if nicknames:
                    self._nicknames |= nicknames
                    self._nicknames_compiled = None

    def __len__(self) -> int:
        return len(self._values)

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where a known value occurs in `text`: (start, end, "known")."""
        if self._compiled is None:
            patterns = sorted(
                {p for p in map(_pattern, self._values) if p is not None}, key=len, reverse=True
            )
            if not patterns:
                return []
            self._compiled = re.compile("|".join(patterns), re.IGNORECASE)
        folded = fold(text)  # the same length as `text`: a match is at the same place in both
        found = [
            (m.start(), m.end(), "known") for m in self._compiled.finditer(folded) if m.end() > m.start()
        ]
        if self._nicknames:
            if self._nicknames_compiled is None:
                alternatives = "|".join(map(re.escape, sorted(self._nicknames, key=len, reverse=True)))
                self._nicknames_compiled = re.compile(rf"(?<![\w'-])(?:{alternatives})(?![\w-])")
            found += [(m.start(), m.end(), "known") for m in self._nicknames_compiled.finditer(folded)]
        return found


_TOKEN = re.compile(r"phi_[0-9a-f]{16}")


def tokens_in(docs: Iterable[Any]) -> set[str]:
    """Every PHI token anywhere in `docs` (stored events, as JSON-able values; keys too)."""
    return {token for doc in docs for token in _TOKEN.findall(json.dumps(doc, default=str))}
