"""Figures as statements print them: `12,345`, `(6,789)` for a negative, `-` for none.

`read_figure` reads one printed figure leniently and says what it repaired; `split_run` finds the
ways a run of digits may be two figures printed without the space between them.
"""

from __future__ import annotations

import re
from decimal import Decimal

MISSING = frozenset({"-", "\u2014", "\u2013", "n/a", "n.a.", "na", ""})
"""How a document shows a period with no figure for a line."""

_LENIENT = re.compile(r"^(\()?(-)?(\d(?:[\d,]*\d)?)(\))?$")
_GROUPED = r"\d{1,3}(?:,\d{3})*"
_STRICT = re.compile(rf"^(?:\({_GROUPED}\)|-?{_GROUPED})$")


def format_figure(value: Decimal | None) -> str:
    """A whole figure as a statement prints it: grouped by thousands, negatives in brackets."""
    if value is None:
        return "-"
    grouped = f"{abs(int(value)):,}"
    return f"({grouped})" if value < 0 else grouped


def read_figure(token: str) -> tuple[Decimal | None, list[str]]:
    """The figure `token` prints and the repairs reading it needed; ValueError when it is not a
    figure at all. A token with one bracket of a pair is a negative that lost the other; digits
    whose separators are not every three places keep their digits (the separator is the damage)."""
    text = token.strip()
    if text.casefold() in MISSING:
        return None, []
    match = _LENIENT.match(text)
    if match is None or ",," in text:
        raise ValueError(f"{token!r} is not a figure")
    opening, minus, digits, closing = match.groups()
    if minus and (opening or closing):
        raise ValueError(f"{token!r} has both a minus sign and brackets")
    repairs: list[str] = []
    if bool(opening) != bool(closing):
        repairs.append(f"{token!r} lost one bracket of a negative figure")
    if "," in digits and not re.fullmatch(_GROUPED, digits):
        repairs.append(f"{token!r} has a misplaced thousands separator")
    value = Decimal(digits.replace(",", ""))
    negative = bool(minus or opening or closing)
    return (-value if negative else value), repairs


def is_clean(token: str) -> bool:
    """Whether `token` is a figure printed exactly as `format_figure` prints one."""
    return bool(_STRICT.match(token))


def split_run(token: str) -> list[tuple[str, str]]:
    """Every way `token` is two clean figures printed without a space between them."""
    return [
        (token[:cut], token[cut:])
        for cut in range(1, len(token))
        if is_clean(token[:cut]) and is_clean(token[cut:])
    ]


def cells_of(tokens: list[str], columns: int) -> tuple[list[str], set[int]] | str:
    """The `columns` cells a row's tokens stand for, and which cells came out of a split run; or,
    when there is not exactly one reading, the reason (no reading, or several)."""
    if len(tokens) == columns:
        return list(tokens), set()  # one figure a period: no run to split (each is read on its own)
    # ways[i][n]: the number of readings of tokens[i:] as n cells (capped at 2: "more than one").
    count = len(tokens)
    ways = [[0] * (columns + 1) for _ in range(count + 1)]
    ways[count][0] = 1
    for i in range(count - 1, -1, -1):
        whole = _readable(tokens[i])
        splits = len(split_run(tokens[i]))
        for n in range(1, columns + 1):
            total = (ways[i + 1][n - 1] if whole else 0) + (splits * ways[i + 1][n - 2] if n >= 2 else 0)
            ways[i][n] = min(total, 2)
    if ways[0][columns] == 0:
        return f"{count} figures for {columns} periods, and no way to read them as {columns}"
    if ways[0][columns] > 1:
        return f"{count} figures for {columns} periods, and more than one way to split them"
    cells: list[str] = []
    split_cells: set[int] = set()
    n = columns
    for i, token in enumerate(tokens):
        if _readable(token) and ways[i + 1][n - 1] == 1:
            cells.append(token)
            n -= 1
            continue
        first, second = split_run(token)[0]
        split_cells |= {len(cells), len(cells) + 1}
        cells += [first, second]
        n -= 2
    return cells, split_cells


def _readable(token: str) -> bool:
    try:
        read_figure(token)
    except ValueError:
        return False
    return True
