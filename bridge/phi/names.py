"""Names with nothing around them: runs of capitalised words that a name lexicon recognises.

`names.json.gz` (written by `loopline.devtools.phi_names` from the `faker` package's locale data)
holds given names and surnames of many locales and the common words that are not names where they
stand capitalised (English words, places, months, company words, the names that are also everyday
words: `May`, `Will`, `Grant`). A run of capitalised words (or of ALL CAPS words), with particles
and initials between them, is a person's name when it has two to four words, one of them a
lexicon name that is not a common word, none of them a common word that is not a name, and no
company word right after it (`Wells Fargo Bank`). Also `SURNAME, GIVEN` and `SURNAME/GIVEN` in
capitals, and lower-case names right after a patient's role (`pt marcus dellavecchia`). Pure: the
lexicon is read once, from the package's own data.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

_DATA = Path(__file__).with_name("names.json.gz")
_FOLD = str.maketrans(
    {"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "\u0131": "i", "þ": "th"}
)
_WORD = re.compile(r"[^\W\d_]+(?:(?:-|['\u2019](?!s(?![^\W\d_])))[^\W\d_]+)*")
"""A word, its hyphenated and apostrophed parts with it (`O'Brien`), a possessive's `'s` not."""
_ROLES = re.compile(
    r"\b(?:pt|patient|member|subscriber|guarantor|spoke\s+(?:to|with)|caller|named)\s+$", re.I
)
_MAX_WORDS = 4
_CACHE_LIMIT = 65536
_ENDINGS = (
    ("ied", "y"),
    ("ies", "y"),
    ("ed", "e"),
    ("ing", "e"),
    ("es", ""),
    ("s", ""),
    ("ly", ""),
    ("er", "e"),
)


def fold(token: str) -> str:
    """`token` case-folded, its diacritics dropped (the lexicon holds both forms)."""
    lowered = token.casefold().translate(_FOLD)
    return "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))


@dataclass(frozen=True)
class NameLexicon:
    """Given names and surnames (case-folded, also without diacritics) and the common words."""

    names: frozenset[str]
    common: frozenset[str]
    particles: frozenset[str]
    """The short words between a name's words (`van der`, `bin`, `Ní`)."""
    org_words: frozenset[str]
    """A word right after a run that makes it an organisation's or a place's name."""
    place_words: frozenset[str]
    """The first words of places' names (`San Diego`): never a person's name's word."""
    _kinds: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Each word's kind once found (words recur in every event)."""

    def kind(self, word: str) -> str:
        """`strong` (a name that is no common word), `weak` (a name that is one too), `common`
        (a word that is no name) or `unknown`; a hyphenated word by its parts."""
        found = self._kinds.get(word)
        if found is None:
            if len(self._kinds) >= _CACHE_LIMIT:
                self._kinds.clear()
            found = self._kinds[word] = self._kind_of_word(word)
        return found

    def _kind_of_word(self, word: str) -> str:
        parts = [p for p in re.split(r"[-'\u2019]", word) if len(p) >= 2] or [word]
        kinds = {self._kind_of(p) for p in parts}
        for kind in ("strong", "weak", "unknown", "common"):
            if kind in kinds:
                return kind
        return "unknown"

    def _kind_of(self, part: str) -> str:
        key = part.casefold()
        folded = fold(part)
        named = key in self.names or folded in self.names
        common = key in self.common or folded in self.common
        if named:
            return "weak" if common else "strong"
        return "common" if common or self._inflected(folded) else "unknown"

    def _inflected(self, word: str) -> bool:
        """Whether `word` is a common word with an English ending (`Called`, `Denied`, `Billing`)."""
        for ending, instead in _ENDINGS:
            if word.endswith(ending) and len(word) > len(ending) + 2:
                stem = word[: -len(ending)]
                if stem + instead in self.common or stem in self.common:
                    return True
        return False


@cache
def lexicon() -> NameLexicon:
    """The lexicon of `names.json.gz`, read once."""
    data = json.loads(gzip.decompress(_DATA.read_bytes()))
    return NameLexicon(
        names=frozenset(data["given"]) | frozenset(data["surnames"]),
        common=frozenset(data["common"]),
        particles=frozenset(data["particles"]),
        org_words=frozenset(data["org_words"]),
        place_words=frozenset(data["place_words"]),
    )


def _shape(word: str) -> str:
    letters = [c for c in word if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "caps"
    if word[0].isupper():
        return "title"
    return "lower"


def find_name_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "name") for every run of words the lexicon makes a person's name."""
    lex = lexicon()
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    spans: list[tuple[int, int, str]] = []
    run: list[tuple[int, int, str]] = []
    shape = ""

    def close(next_index: int) -> None:
        names = [
            w
            for w in run
            if len(w[2]) > 1 and (w[2].casefold() not in lex.particles or _shape(w[2]) == "caps")
        ]
        if not 2 <= len(names) <= _MAX_WORDS:
            return
        kinds = [lex.kind(w[2]) for w in names]
        if not any(k == "strong" and len(w[2]) >= 3 for k, w in zip(kinds, names, strict=True)) or (
            shape == "caps" and kinds.count("unknown") > 1
        ):
            return
        if next_index < len(words):
            between = text[run[-1][1] : words[next_index][0]]
            if (between.strip() == "&" and not _person_at(words, next_index, lex)) or (
                between == " " and fold(words[next_index][2]) in lex.org_words
            ):
                return
        spans.append((run[0][0] if len(run[0][2]) == 1 else names[0][0], names[-1][1], "name"))

    for index, (start, end, word) in enumerate(words):
        word_shape = _shape(word)
        initial = len(word) == 1 and word.isupper()
        name_like = word_shape in ("caps", "title") and (
            initial or (lex.kind(word) != "common" and fold(word) not in lex.place_words)
        )
        particle = word.casefold() in lex.particles and word_shape == "lower"
        # `WATANABE Kenji`: a family name in capitals first, as many countries write it
        surname_first = (
            shape == "caps"
            and word_shape == "title"
            and len(run) == 1
            and text[run[0][1] : start] == " "
            and lex.kind(word) == "strong"
            and lex.kind(run[0][2]) != "common"
        )
        same_shape = word_shape == shape or initial or shape == "" or surname_first
        if run and _joins(text[run[-1][1] : start]) and ((name_like and same_shape) or particle):
            run.append((start, end, word))
            if not initial and word_shape != "lower":
                shape = shape or word_shape
            continue
        if run:
            close(index)
        run, shape = ([(start, end, word)], "" if initial else word_shape) if name_like else ([], "")
    if run:
        close(len(words))
    return spans + _surname_given(text, lex) + _lower_after_role(text, words, lex)


def _person_at(words: list[tuple[int, int, str]], index: int, lex: NameLexicon) -> bool:
    """Whether a person's name starts at `words[index]` (`Elena M. Rossi` after an `&`)."""
    if index + 1 >= len(words) or _shape(words[index][2]) != "title" or lex.kind(words[index][2]) != "strong":
        return False
    following = words[index + 1][2]
    return (len(following) == 1 and following.isupper()) or (
        _shape(following) == "title" and lex.kind(following) != "common"
    )


def _joins(gap: str) -> bool:
    """Whether two words with `gap` between them may be one name: a space, or an initial's dot."""
    return gap in (" ", ". ") or (gap.strip() in ("", ".") and "\n" not in gap and len(gap) <= 3)


_SURNAME_GIVEN = re.compile(r"(?<![\w-])([A-Z][A-Z'-]+)\s*(?:,\s*|/|\^)([A-Z][A-Z'-]+)(?![\w-])")


def _surname_given(text: str, lex: NameLexicon) -> list[tuple[int, int, str]]:
    """`LI, NAN`, `KOSTOPOULOS/ANASTASIA`, `NGUYEN^THANH` (HL7's order): a surname and a given name in capitals, one of them a
    lexicon name and neither a common word."""
    spans: list[tuple[int, int, str]] = []
    for match in _SURNAME_GIVEN.finditer(text):
        kinds = {lex.kind(match.group(1)), lex.kind(match.group(2))}
        if "strong" in kinds and "common" not in kinds and max(len(match.group(1)), len(match.group(2))) >= 3:
            spans.append((match.start(), match.end(), "name"))
    return spans


def _lower_after_role(
    text: str, words: list[tuple[int, int, str]], lex: NameLexicon
) -> list[tuple[int, int, str]]:
    """A name written in lower case right after a patient's role: `pt marcus dellavecchia`."""
    spans: list[tuple[int, int, str]] = []
    for index in range(len(words) - 1):
        (start, _end, first), (_s2, end, second) = words[index], words[index + 1]
        if not (first.islower() and second.islower() and len(first) >= 3 and len(second) >= 3):
            continue
        if text[words[index][1] : words[index + 1][0]] != " ":
            continue
        kinds = (lex.kind(first), lex.kind(second))
        if not _ROLES.search(text[max(0, start - 20) : start]):
            continue
        if kinds[0] == "strong" and kinds[1] in ("strong", "unknown"):
            spans.append((start, end, "name"))
    return spans
