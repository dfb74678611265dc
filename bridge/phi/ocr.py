"""Text read by OCR, where digits and letters stand in for each other: `O4/12/1951`, `2l4-55-O981`,
`R0SALIND`. The shapes are tried again on a copy with each mixed word put right (letters that look
like digits inside a number, digits that look like letters inside a word in capitals).

Pure. The copy has the text's length, so its spans are the text's; only a span touching a
character put right is new.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_GATE = re.compile(r"\d[OolI]|[OolI]\d|[A-Z][01][A-Z]|[A-Z]{2}[01]\b|\b[01][A-Z]{2}|[A-Z]l[A-Z]")
_WORD = re.compile(r"[A-Za-z0-9]+")
_AS_DIGIT = str.maketrans("OolI", "0011")
_AS_LETTER = str.maketrans("01l", "OII")


_ICD = re.compile(r"[A-Z]\d{2}")
"""A diagnosis code's category (`I10`, `O80`): a letter that is a letter."""


def _fixed(word: str) -> str:
    if _ICD.fullmatch(word):
        return word
    letters = sum(c.isalpha() for c in word)
    digits = len(word) - letters
    if digits and all(c in "OolI" for c in word if c.isalpha()):
        return word.translate(_AS_DIGIT)  # a number with a letter in it
    if (
        letters >= 3
        and word.upper() == word.replace("l", "L")
        and all(c in "01" for c in word if c.isdigit())
    ):
        return word.translate(_AS_LETTER)  # a word in capitals with a digit or an `l` in it
    return word


def find_ocr_spans(
    text: str, find: Callable[[str], list[tuple[int, int, str]]]
) -> list[tuple[int, int, str]]:
    """The spans `find` gives on `text` with its OCR confusions put right, where they touch one."""
    if _GATE.search(text) is None:
        return []
    chars = list(text)
    changed = [False] * len(text)
    for match in _WORD.finditer(text):
        word = match.group()
        fixed = _fixed(word)
        if fixed != word:
            chars[match.start() : match.end()] = fixed
            for i, (a, b) in enumerate(zip(word, fixed, strict=True)):
                changed[match.start() + i] = a != b
    if not any(changed):
        return []
    return [s for s in find("".join(chars)) if any(changed[s[0] : s[1]])]
