"""`PhiDirectory`: every PHI value a tenant's episodes showed, found again in any spelling.

`KnownPhi` holds one episode's values as one regex; the directory holds the tenant's (every value
tokenised at a PHI-marked position, world snapshots included, by any episode of this process) and
matches them by normal form, so a name another episode showed is found in this one's note, and a
name in the instructions is found before any tool result of this episode named it:

- case, accents and punctuation do not matter (`KHAN, AISHA`, `aisha_khan`, `Hernandez` for
  `Hernández`, `Mueller` for `Müller`), nor word order: each word of a name (three letters or
  more, not a stopword or particle of `fields.toml`) is a value of its own, so are two or three of
  its words written together (`Vanderberg`, `OBrien`), and a single initial or a particle next to
  it goes with it (`A. Khan`, `Khan A.`, `van der Berg`, `Al-Sayed`), and so does a capitalised
  word just before it (a relative's given name: `Tanya Jackson`);
- an id or a number matches by its letters and digits alone (`ACM-100234`, `acm 100234`,
  `ACM100234`, `(312) 555-0198`, and a phone number with or without its country code `1`);
  digits alone count from six of them, and an id's run of six digits or more is a value of its
  own when written as one word (`556102` of `MR-556102`, not `$556,102`), found also inside a
  longer id (`HERN031468` holds a birth date);
- a date matches in its usual orders and separators (`1975-11-02`, `1975/11/02`, `11/02/1975`,
  `02.11.1975`, `19751102`, `02-Nov-1975`).

Lookups are set lookups over the text's words, so the directory costs the same at a thousand values
as at ten. Values of more than four words (a PHI-marked document; particles and stopwords do not
count for a name) are not learned.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from bridge.phi.known import leaves
from bridge.phi.spelling import fold, spellings

MIN_WORD = 3
MIN_ID = 4
MIN_DIGITS_ONLY = 6
"""A value of digits alone is learned from six digits up: a five-digit ZIP code would otherwise
match every CPT code and amount that happens to share its digits (ZIP codes in an address are the
pattern classes' job)."""
MAX_ID_CHUNKS = 8
MAX_VALUE_WORDS = 4
"""A value of more words is a document (a PHI-marked medical record, a letter), not a name or an
address: its words would make ordinary vocabulary PHI, so the directory does not learn it (the
episode's `KnownPhi` and the pattern classes still cover it)."""
_CHUNK = re.compile(r"[^\W_]+")
_GAP = re.compile(r"^[\s().\-/_,:#]{0,3}$")
_INITIAL_GAP = re.compile(r"^[\s.,]{1,3}$")
_PARTICLE_GAP = re.compile(r"^[\s.'\u2019-]{1,2}$")
_GIVEN_GAP = re.compile(r"^ $")
_GIVEN_AFTER_GAP = re.compile(r"^, $")
_ID_GLUE = re.compile(r"^[-_]$")
_DIGIT_RUN = re.compile(r"\d+")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
MAX_JOINED_WORDS = 3
"""Up to this many adjacent words of a name are also learned written together (`vanderberg`)."""


def date_digit_forms(text: str) -> list[str]:
    """The digit strings an ISO date is written as (with the separators taken out)."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        return []
    y, m, d = f"{day.year:04d}", f"{day.month:02d}", f"{day.day:02d}"
    short_m, short_d, yy = str(day.month), str(day.day), y[2:]
    return sorted({y + m + d, m + d + y, d + m + y, short_m + short_d + y, short_d + short_m + y, m + d + yy})


def date_month_forms(text: str) -> list[str]:
    """The forms of an ISO date with its month as a word, separators taken out (`02nov1975`)."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        return []
    months = {f"{day:%b}".casefold(), f"{day:%B}".casefold()}
    days = {f"{day.day:02d}", str(day.day)}
    return sorted({d + m + f"{day.year:04d}" for d in days for m in months})


def phone_forms(digits: str) -> list[str]:
    """A North American number with and without its country code (`13125550198`, `3125550198`)."""
    if len(digits) == 11 and digits.startswith("1"):
        return [digits[1:]]
    if len(digits) == 10:
        return ["1" + digits]
    return []


def _capitalised(word: str) -> bool:
    return len(word) >= 2 and word.isalpha() and word[0].isupper() and word[1:].islower()


def _normal(chunk: str) -> str:
    return fold(chunk.casefold())


class PhiDirectory:
    """The PHI values of one tenant, by normal form. Safe for many threads."""

    def __init__(
        self,
        stopwords: Iterable[str] = (),
        particles: Iterable[str] = (),
        transliterations: Mapping[str, str] | None = None,
    ) -> None:
        self._stop = frozenset(word.casefold() for word in stopwords)
        self._particles = frozenset(word.casefold() for word in particles)
        self._spelled = dict(transliterations or {})
        self._words: set[str] = set()
        self._ids: set[str] = set()
        self._runs: set[str] = set()
        self._phrases: set[tuple[str, ...]] = set()
        self._phrase_lengths: set[int] = set()
        self._max_id = 0
        self._lock = threading.Lock()
        self.generation = 0
        """Grows whenever a value is learned (callers cache answers per generation)."""

    def __len__(self) -> int:
        return len(self._words) + len(self._ids) + len(self._runs) + len(self._phrases)

    def learn(self, value: Any) -> None:
        """Remember every string or integer inside `value` (a scalar, a dict, a list)."""
        words: set[str] = set()
        ids: set[str] = set()
        runs: set[str] = set()
        phrases: set[tuple[str, ...]] = set()
        for text in leaves(value):
            if _EMAIL.fullmatch(text.strip()):
                text = text.strip().partition("@")[0]  # a mailbox's name, not its domain (`gmail`, `com`)
            chunks = [c.casefold() for c in _CHUNK.findall(text)]
            joined = "".join(chunks)
            if any(c.isdigit() for c in joined):
                if len(chunks) > MAX_VALUE_WORDS:
                    continue
                ids.update(self._id_forms(text, fold(joined)))
                if not joined.isdigit():
                    runs.update(r for r in _DIGIT_RUN.findall(joined) if len(r) >= MIN_DIGITS_ONLY)
                continue
            content = [c for c in chunks if len(c) >= MIN_WORD and c not in self._stop | self._particles]
            if len(content) > MAX_VALUE_WORDS:
                continue
            for chunk in content:
                words |= spellings(chunk, self._spelled)
            for first in range(len(chunks) - 1):
                for last in range(first + 2, min(len(chunks), first + MAX_JOINED_WORDS) + 1):
                    words |= spellings("".join(chunks[first:last]), self._spelled)
            if len(chunks) > 1:
                normal = tuple(fold(c) for c in chunks)
                phrases.add(normal)
                if len(chunks) == 2:
                    phrases.add((normal[1], normal[0]))
        with self._lock:
            fresh = (
                (words - self._words) or (ids - self._ids) or (runs - self._runs) or (phrases - self._phrases)
            )
            if not fresh:
                return
            self._words |= words
            self._ids |= ids
            self._runs |= runs
            self._phrases |= phrases
            self._phrase_lengths |= {len(p) for p in phrases}
            self._max_id = max([self._max_id, *map(len, ids)])
            self.generation += 1

    def _id_forms(self, text: str, joined: str) -> set[str]:
        forms = set(date_digit_forms(text)) | set(date_month_forms(text))
        if len(joined) >= (MIN_DIGITS_ONLY if joined.isdigit() else MIN_ID):
            forms.add(joined)
        if joined.isdigit():
            forms.update(phone_forms(joined))
            if len(joined.lstrip("0")) >= MIN_DIGITS_ONLY:
                forms.add(joined.lstrip("0"))  # a number is written with or without its zero padding
        return forms

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where a value of the directory occurs in `text`: (start, end, "directory")."""
        if not text or not (self._words or self._ids or self._runs or self._phrases):
            return []
        chunks = [(m.start(), m.end(), _normal(m.group())) for m in _CHUNK.finditer(text)]
        found: list[tuple[int, int, str]] = []
        words, ids, phrases = self._words, self._ids, self._phrases
        for index, (start, _end, norm) in enumerate(chunks):
            if norm in words:
                found.append((*self._name_span(text, chunks, index), "directory"))
            for length in self._phrase_lengths:
                window = chunks[index : index + length]
                if len(window) == length and tuple(c[2] for c in window) in phrases:
                    found.append((start, window[-1][1], "directory"))
        if ids or self._runs:
            found.extend(self._glued(text, chunks, span) for span in self._id_spans(text, chunks))
        return found

    def _glued(
        self, text: str, chunks: list[tuple[int, int, str]], span: tuple[int, int, str]
    ) -> tuple[int, int, str]:
        """An id span widened to the whole token it is glued into by hyphens (`RAHM-612093348`)."""
        start, end, kind = span
        ends = {c[1]: i for i, c in enumerate(chunks)}
        starts = {c[0]: i for i, c in enumerate(chunks)}
        first, last = starts[start], ends[end]
        while first > 0 and _ID_GLUE.match(text[chunks[first - 1][1] : chunks[first][0]]):
            first -= 1
        while last + 1 < len(chunks) and _ID_GLUE.match(text[chunks[last][1] : chunks[last + 1][0]]):
            last += 1
        return chunks[first][0], chunks[last][1], kind

    def hit(self, text: str) -> bool:
        """Whether any value of the directory occurs in `text`."""
        return bool(self.spans(text))

    def _name_span(self, text: str, chunks: list[tuple[int, int, str]], index: int) -> tuple[int, int]:
        """The name word at `index` with the initials and particles next to it, and the given name
        just before it when the word is written as a name (capitalised)."""
        first = last = index
        while first > 0 and self._joins(text, chunks, first - 1, first):
            first -= 1
        while last + 1 < len(chunks) and self._joins(text, chunks, last + 1, last):
            last += 1
        start, end = chunks[first][0], chunks[last][1]
        if last > index and len(chunks[last][2]) == 1 and text[end : end + 1] == ".":
            end += 1
        word = text[chunks[index][0] : chunks[index][1]]
        if not word[:1].isupper():
            return start, end
        if first > 0 and self._given(text, chunks[first - 1], text[chunks[first - 1][1] : start], _GIVEN_GAP):
            start = chunks[first - 1][0]  # `Tanya Jackson`
        if last + 1 < len(chunks) and self._given(
            text, chunks[last + 1], text[end : chunks[last + 1][0]], _GIVEN_AFTER_GAP
        ):
            end = chunks[last + 1][1]  # `Jackson, Tanya`
        elif last + 1 < len(chunks) and self._given(
            text, chunks[last + 1], text[end : chunks[last + 1][0]], _GIVEN_GAP
        ):
            end = chunks[last + 1][1]  # `Tran Thi Mai`, `Hernández Ruiz`: a name's next word
        return start, end

    def _given(self, text: str, chunk: tuple[int, int, str], gap: str, shape: re.Pattern[str]) -> bool:
        """Whether `chunk`, next to a name word across `gap`, is written as a given name."""
        return (
            bool(shape.match(gap)) and _capitalised(text[chunk[0] : chunk[1]]) and chunk[2] not in self._stop
        )

    def _joins(self, text: str, chunks: list[tuple[int, int, str]], other: int, near: int) -> bool:
        """Whether the chunk `other` (an initial or a particle) goes with its neighbour `near`."""
        norm = chunks[other][2]
        left, right = sorted((other, near))
        gap = text[chunks[left][1] : chunks[right][0]]
        if len(norm) == 1 and norm.isalpha() and _INITIAL_GAP.match(gap):
            return True
        return other < near and norm in self._particles and bool(_PARTICLE_GAP.match(gap))

    def _id_spans(self, text: str, chunks: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        # An id spans at most MAX_ID_CHUNKS chunks, at least one of them with a digit: only starts
        # that near a digit are tried.
        digits = [i for i, c in enumerate(chunks) if any(ch.isdigit() for ch in c[2])]
        starts = sorted({s for d in digits for s in range(max(0, d - MAX_ID_CHUNKS + 1), d + 1)})
        found: list[tuple[int, int, str]] = []
        for start, end, norm in chunks:
            if norm in self._runs or any(
                run in self._ids or run in self._runs
                for run in _DIGIT_RUN.findall(norm)
                if len(run) >= MIN_DIGITS_ONLY and run != norm
            ):
                found.append((start, end, "directory"))  # one word: a known number, or an id holding one
        for first in starts:
            joined = ""
            for last in range(first, min(len(chunks), first + MAX_ID_CHUNKS)):
                if last > first and not _GAP.match(text[chunks[last - 1][1] : chunks[last][0]]):
                    break
                joined += chunks[last][2]
                # a number written with more zero padding than it was learned with
                bare = joined.lstrip("0") if joined[:1] == "0" and joined.isdigit() else joined
                if len(bare) > self._max_id:
                    break
                if joined in self._ids or bare in self._ids:
                    found.append((chunks[first][0], chunks[last][1], "directory"))
        return found
