"""Numbers, dates and names read out in words: a transcript's `six oh eight, five five five, zero
one three one`, `March third, fifty-four`, a name spelled letter by letter (`K-O-W-A-L`).

Pure. A run of number words (digits, `oh`, `zero`, `double`, teens, tens and their compounds;
`hundred` and `thousand` end a run: they write amounts, not identifiers) read out as four or more
digits, in three or more words, is an identifier. A month followed by a day in words or digits and
a year in words is a date. Letters joined by hyphens (five or more) are a word spelled out.
Months of the languages patients write in (`14 März 1961`, `2 février 1977`) are dates too.
"""

from __future__ import annotations

import re

_UNITS = {
    "zero": 1, "oh": 1, "o": 1, "one": 1, "two": 1, "three": 1, "four": 1, "five": 1, "six": 1,
    "seven": 1, "eight": 1, "nine": 1, "ten": 2, "eleven": 2, "twelve": 2, "thirteen": 2,
    "fourteen": 2, "fifteen": 2, "sixteen": 2, "seventeen": 2, "eighteen": 2, "nineteen": 2,
}  # fmt: skip
"""A number word and how many digits it reads out."""
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth"
)
_UNIT_WORD = "|".join(sorted(_UNITS, key=len, reverse=True))
_TEN_WORD = "|".join(_TENS)
_NUMBER_WORD = rf"(?:(?:{_TEN_WORD})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|{_UNIT_WORD}|double|triple)"
_NUMBER_RUN = re.compile(
    rf"(?<![\w-])(?:{_NUMBER_WORD})(?:(?:\s*,\s*|\s+|\s*-\s*|\s+dash\s+)(?:{_NUMBER_WORD}))+(?![\w-])",
    re.IGNORECASE,
)
_WORD = re.compile(rf"{_TEN_WORD}(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|[a-z]+", re.I)
_NUMBER_STEMS = (
    "one",
    "two",
    "thr",
    "fou",
    "fiv",
    "six",
    "sev",
    "eig",
    "nin",
    "zer",
    "oh",
    "ten",
    "ele",
    "twe",
)
"""A cheap first look, in the lower-cased text: every number word holds one of these."""
MIN_DIGITS = 4
MIN_WORDS = 3
MIN_SPELLED = 5
"""Fewer letters spelled out are an acronym's (`D-U-N-S`), not a name's."""
_MONTHS = (
    r"Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
)
_SPOKEN_DATE = re.compile(
    rf"\b(?:{_MONTHS})\.?\s+(?:(?:{_ORDINALS})|(?:{_TEN_WORD})(?:[- ](?:{_ORDINALS}))|\d{{1,2}}(?:st|nd|rd|th)?)"
    rf",?\s+(?:(?:nineteen|twenty)\s+)?(?:{_TEN_WORD})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?\b",
    re.IGNORECASE,
)
_FOREIGN_MONTHS = (
    # German, Dutch, French, Italian, Portuguese, Spanish, Scandinavian, Polish (genitive)
    r"januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember|"
    r"januari|februari|maart|mei|augustus|janvier|février|fevrier|mars|avril|juin|juillet|août|aout|"
    r"septembre|octobre|novembre|décembre|decembre|gennaio|febbraio|aprile|maggio|giugno|luglio|"
    r"settembre|ottobre|dicembre|janeiro|fevereiro|março|marco|maio|junho|julho|setembro|outubro|"
    r"novembro|dezembro|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|"
    r"octubre|noviembre|diciembre|januari|mars|maj|augusti|oktober|stycznia|lutego|marca|kwietnia|"
    r"maja|czerwca|lipca|sierpnia|września|wrzesnia|października|pazdziernika|listopada|grudnia"
)
_FOREIGN_MONTH_NAMES = frozenset(_FOREIGN_MONTHS.split("|"))
_DAY_MONTH_YEAR = re.compile(
    r"\b\d{1,2}\.?\s+(?:de\s+)?(?P<m>[^\W\d_]{3,11})\.?,?\s+(?:de\s+|del\s+)?\d{4}\b"
)
_MONTH_DAY_YEAR = re.compile(r"\b(?P<m>[^\W\d_]{3,11})\s+\d{1,2},?\s+\d{4}\b")
_YEAR = re.compile(r"\b\d{4}\b")
_SPELLED_LETTERS = re.compile(r"(?<![\w-])[A-Za-z](?:-[A-Za-z]){2,}(?:\s+[A-Za-z](?:-[A-Za-z])*)*(?![\w-])")


def _digits_read(words: list[str]) -> int:
    count = 0
    for word in words:
        lower = word.casefold()
        if lower in _UNITS:
            count += _UNITS[lower]
        elif lower.split("-")[0].split(" ")[0] in _TENS:
            count += 2
    return count


def find_spoken_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) for each number read out as an identifier, each date in words or in a
    month of another language, and each word spelled letter by letter."""
    spans: list[tuple[int, int, str]] = []
    lowered = text.lower()
    if any(stem in lowered for stem in _NUMBER_STEMS):
        for match in _NUMBER_RUN.finditer(text):
            words = [w.group() for w in _WORD.finditer(match.group()) if w.group().casefold() != "dash"]
            if len(words) >= MIN_WORDS and _digits_read(words) >= MIN_DIGITS:
                spans.append((match.start(), match.end(), "spoken_number"))
    if "ty" in lowered:  # a year in words has its tens
        spans += [(m.start(), m.end(), "date") for m in _SPOKEN_DATE.finditer(text)]
    if _YEAR.search(text) is not None:  # a date of another language's month: a shape, then its month
        for shape in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
            spans += [
                (m.start(), m.end(), "date")
                for m in shape.finditer(text)
                if m.group("m").casefold() in _FOREIGN_MONTH_NAMES
            ]
    if "-" in text:
        spans += [
            (m.start(), m.end(), "spelled_name")
            for m in _SPELLED_LETTERS.finditer(text)
            if sum(c.isalpha() for c in m.group()) >= MIN_SPELLED
        ]
    return spans
