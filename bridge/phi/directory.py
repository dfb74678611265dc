"""`PhiDirectory`: every PHI value a tenant's episodes showed, found again in any spelling.

`KnownPhi` holds one episode's values as one regex; the directory holds the tenant's (every value
tokenised at a PHI-marked position, world snapshots included, by any episode of this process) and
matches them by normal form, so a name another episode showed is found in this one's note, and a
name in the instructions is found before any tool result of this episode named it:

- case and punctuation do not matter (`KHAN, AISHA`, `aisha_khan`), nor word order: each word of a
  name (three letters or more, not a stopword of `fields.toml`) is a value of its own, and a single
  initial next to it goes with it (`A. Khan`, `Khan A.`);
- an id or a number matches by its letters and digits alone (`ACM-100234`, `acm 100234`,
  `ACM100234`, `(312) 555-0198`); digits alone count from six of them;
- a date matches in its usual orders and separators (`1975-11-02`, `1975/11/02`, `11/02/1975`,
  `02.11.1975`, `19751102`).

Lookups are set lookups over the text's words, so the directory costs the same at a thousand values
as at ten. Values of more than four words (a PHI-marked document) are not learned.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from datetime import date
from typing import Any

from bridge.phi.known import leaves

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


def date_digit_forms(text: str) -> list[str]:
    """The digit strings an ISO date is written as (with the separators taken out)."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        return []
    y, m, d = f"{day.year:04d}", f"{day.month:02d}", f"{day.day:02d}"
    short_m, short_d, yy = str(day.month), str(day.day), y[2:]
    return sorted({y + m + d, m + d + y, d + m + y, short_m + short_d + y, short_d + short_m + y, m + d + yy})


class PhiDirectory:
    """The PHI values of one tenant, by normal form. Safe for many threads."""

    def __init__(self, stopwords: Iterable[str] = ()) -> None:
        self._stop = frozenset(word.casefold() for word in stopwords)
        self._words: set[str] = set()
        self._ids: set[str] = set()
        self._phrases: set[tuple[str, ...]] = set()
        self._phrase_lengths: set[int] = set()
        self._max_id = 0
        self._lock = threading.Lock()
        self.generation = 0
        """Grows whenever a value is learned (callers cache answers per generation)."""

    def __len__(self) -> int:
        return len(self._words) + len(self._ids) + len(self._phrases)

    def learn(self, value: Any) -> None:
        """Remember every string or integer inside `value` (a scalar, a dict, a list)."""
        words: set[str] = set()
        ids: set[str] = set()
        phrases: set[tuple[str, ...]] = set()
        for text in leaves(value):
            chunks = [c.casefold() for c in _CHUNK.findall(text)]
            if len(chunks) > MAX_VALUE_WORDS:
                continue
            joined = "".join(chunks)
            if any(c.isdigit() for c in joined):
                if len(joined) >= (MIN_DIGITS_ONLY if joined.isdigit() else MIN_ID):
                    ids.add(joined)
                ids.update(date_digit_forms(text))
                continue
            words.update(c for c in chunks if len(c) >= MIN_WORD and c not in self._stop)
            if len(chunks) > 1:
                phrases.add(tuple(chunks))
                if len(chunks) == 2:
                    phrases.add((chunks[1], chunks[0]))
        with self._lock:
            fresh = (words - self._words) or (ids - self._ids) or (phrases - self._phrases)
            if not fresh:
                return
            self._words |= words
            self._ids |= ids
            self._phrases |= phrases
            self._phrase_lengths |= {len(p) for p in phrases}
            self._max_id = max([self._max_id, *map(len, ids)])
            self.generation += 1

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where a value of the directory occurs in `text`: (start, end, "directory")."""
        if not text or not (self._words or self._ids or self._phrases):
            return []
        chunks = [(m.start(), m.end(), m.group().casefold()) for m in _CHUNK.finditer(text)]
        found: list[tuple[int, int, str]] = []
        words, ids, phrases = self._words, self._ids, self._phrases
        for index, (start, _end, norm) in enumerate(chunks):
            if norm in words:
                found.append((*self._with_initials(text, chunks, index), "directory"))
            for length in self._phrase_lengths:
                window = chunks[index : index + length]
                if len(window) == length and tuple(c[2] for c in window) in phrases:
                    found.append((start, window[-1][1], "directory"))
        if ids:
            found.extend(self._id_spans(text, chunks))
        return found

    def hit(self, text: str) -> bool:
        """Whether any value of the directory occurs in `text`."""
        return bool(self.spans(text))

    def _with_initials(self, text: str, chunks: list[tuple[int, int, str]], index: int) -> tuple[int, int]:
        start, end, _ = chunks[index]
        before = chunks[index - 1] if index > 0 else None
        if before is not None and len(before[2]) == 1 and _INITIAL_GAP.match(text[before[1] : start]):
            start = before[0]
        after = chunks[index + 1] if index + 1 < len(chunks) else None
        if after is not None and len(after[2]) == 1 and _INITIAL_GAP.match(text[end : after[0]]):
            end = after[1] + (1 if text[after[1] : after[1] + 1] == "." else 0)
        return start, end

    def _id_spans(self, text: str, chunks: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        # An id spans at most MAX_ID_CHUNKS chunks, at least one of them with a digit: only starts
        # that near a digit are tried.
        digits = [i for i, c in enumerate(chunks) if any(ch.isdigit() for ch in c[2])]
        starts = sorted({s for d in digits for s in range(max(0, d - MAX_ID_CHUNKS + 1), d + 1)})
        found: list[tuple[int, int, str]] = []
        for first in starts:
            joined = ""
            for last in range(first, min(len(chunks), first + MAX_ID_CHUNKS)):
                if last > first and not _GAP.match(text[chunks[last - 1][1] : chunks[last][0]]):
                    break
                joined += chunks[last][2]
                if len(joined) > self._max_id:
                    break
                if joined in self._ids:
                    found.append((chunks[first][0], chunks[last][1], "directory"))
        return found
