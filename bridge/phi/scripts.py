"""Words in a script other than Latin: in a note written in a Latin script, they are a person's
name or address as the person writes it (`Петрова Анна`, `王小明`, `박지민`, `Παπαδάκης`).

Pure. A run of two letters or more of the Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Thai,
Georgian, Hangul, kana or Han scripts (words joined by spaces, hyphens or a middle dot) is one
span; a lone letter (`β`-blocker, `µ`g) is a symbol, not a name.
"""

from __future__ import annotations

import re

_LETTERS = (
    "\u0370-\u03ff\u1f00-\u1fff"  # Greek
    "\u0400-\u052f"  # Cyrillic
    "\u0530-\u058f"  # Armenian
    "\u0590-\u05ff"  # Hebrew
    "\u0600-\u06ff\u0750-\u077f"  # Arabic
    "\u0900-\u0dff"  # the Indic scripts
    "\u0e00-\u0eff"  # Thai, Lao
    "\u10a0-\u10ff"  # Georgian
    "\u1100-\u11ff\uac00-\ud7af"  # Hangul
    "\u3040-\u30ff"  # kana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
)
_RUN = re.compile(rf"[{_LETTERS}]+(?:[\s\u00b7\u30fb'-]+[{_LETTERS}]+)*")
_ANY = re.compile(rf"[{_LETTERS}]")
_SYMBOLS = frozenset("\u00b5\u03bc")  # the micro sign and mu, as in `µg`


def find_script_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "name") for every run of two or more letters of a script other than Latin."""
    if text.isascii() or _ANY.search(text) is None:
        return []
    return [
        (m.start(), m.end(), "name")
        for m in _RUN.finditer(text)
        if sum(c.isalpha() and c not in _SYMBOLS for c in m.group()) >= 2
    ]
