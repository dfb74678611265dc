"""The other names a person goes by: the nicknames of a given name (`nicknames.json`: `Margaret`
→ `Peggy`, `Francisco` → `Paco`, and back) and the short forms cut from a long name's start or
end (`Oluwaseun` → `Olu`, `Seun`; `Adewale` → `Wale`).

Pure; the table is general knowledge of names, read once from the package's data. A short form is
kept only where it is no common word and no calendar abbreviation (`Mar` of `Martina`; nor is
the table's `Bill` of `William`, a word every claim holds): it is matched capitalised, and only
for a name this text or episode already holds.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from bridge.phi.names import fold, lexicon

_DATA = Path(__file__).with_name("nicknames.json")
MIN_SHORT = 3
MIN_CUT_FROM = 6
"""A name is cut into short forms only from this many letters up."""
MIN_SUFFIX = 4
MIN_LEFT = 2
"""A short form leaves at least this many letters of the name out."""
_CALENDAR = frozenset(
    [
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
    ]
)


@cache
def _table() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    nicknames: dict[str, list[str]] = json.loads(_DATA.read_text(encoding="utf-8"))
    formal_of: dict[str, set[str]] = {}
    for formal, nicks in nicknames.items():
        for nick in nicks:
            formal_of.setdefault(nick, set()).add(formal)
    return (
        {k: frozenset(v) for k, v in nicknames.items()},
        {k: frozenset(v) for k, v in formal_of.items()},
    )


def _keep(form: str) -> bool:
    return len(form) >= MIN_SHORT and form not in _CALENDAR and lexicon().kind(form) not in ("common", "weak")


@cache
def name_variants(word: str, *, cut: bool = True) -> frozenset[str]:
    """The other forms of the name word `word`, case-folded and without diacritics: its nicknames
    or formal names in the table, and (with `cut`) its short forms."""
    key = fold(word)
    if not key.isalpha():
        return frozenset()
    nicknames, formal_of = _table()
    forms = set(nicknames.get(key, ())) | set(formal_of.get(key, ()))
    if cut and len(key) >= MIN_CUT_FROM:
        forms |= {key[:cut] for cut in range(MIN_SHORT, len(key) - MIN_LEFT + 1)}
        forms |= {key[-cut:] for cut in range(MIN_SUFFIX, len(key) - MIN_LEFT + 1)}
    forms.discard(key)
    return frozenset(filter(_keep, forms))
