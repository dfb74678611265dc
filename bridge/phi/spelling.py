"""How people write the same name: letters folded to their plain form, and the spellings a letter has.

Pure. `fold` takes accents off letter by letter and keeps the text's length (so a match found in
the folded text is at the same place in the original): `Hernández` → `Hernandez`, `Nguyễn` →
`Nguyen`, `Ångström` → `Angstrom`, `ø` → `o`. `spellings` gives a name word's other written forms:
its folded form and its transliterations (`Müller` → `muller`, `mueller`), as `fields.toml`
`[names.transliterations]` lists them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from functools import cache

_NO_DECOMPOSITION = {"ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "\u0131": "i", "\u2019": "'"}
"""Letters Unicode does not decompose into a base letter and a mark, with the base people type."""


@cache
def _fold_char(char: str) -> str:
    if char.isascii():
        return char
    if char in _NO_DECOMPOSITION:
        return _NO_DECOMPOSITION[char]
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 else char


def fold(text: str) -> str:
    """`text` with each accented letter replaced by its base letter; the same length as `text`."""
    return text if text.isascii() else "".join(map(_fold_char, text))


def spellings(word: str, transliterations: Mapping[str, str]) -> set[str]:
    """`word` casefolded, folded, and with each transliterated letter written out (`ü` → `ue`)."""
    lower = word.casefold()
    forms = {lower, fold(lower)}
    if any(letter in lower for letter in transliterations):
        spelled = "".join(transliterations.get(c, c) for c in lower)
        forms.add(fold(spelled))
    return forms
