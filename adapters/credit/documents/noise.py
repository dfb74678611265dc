"""OCR-style damage to printed figures, as PDF-to-text extraction leaves it; seeded, so a package
rebuilt from the same seed carries the same damage."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from schemas.base import Contract

NoiseKind = Literal["separator", "bracket", "lost_brackets", "merge"]
NOISE_KINDS: tuple[NoiseKind, ...] = ("separator", "bracket", "lost_brackets", "merge")


class NoiseConfig(Contract):
    """How much damage, of which kinds, from which seed."""

    seed: int = 0
    """Seed of every damage decision."""
    rate: float = Field(default=0.1, ge=0, le=1)
    """Share of printed figures damaged."""
    kinds: tuple[NoiseKind, ...] = NOISE_KINDS
    """`separator`: thousands separators in the wrong places; `bracket`: a negative loses one
    bracket; `lost_brackets`: a negative loses both (its sign is gone); `merge`: a figure runs into
    the next one without the space between them."""


@dataclass(frozen=True)
class Damage:
    """What was done to one printed figure (row index, column index, kind)."""

    row: int
    column: int
    kind: NoiseKind


def damage_row(
    tokens: list[str], row: int, config: NoiseConfig, rng: random.Random
) -> tuple[list[str], list[Damage]]:
    """The printed figures of one row after damage; merged figures come back as one token."""
    out: list[str] = []
    done: list[Damage] = []
    merge_next = False
    for column, token in enumerate(tokens):
        if merge_next:
            out[-1] += token
            merge_next = False
            continue
        if rng.random() >= config.rate or token == "-":
            out.append(token)
            continue
        kind = rng.choice(config.kinds)
        damaged = _damage(token, kind, rng, has_next=column + 1 < len(tokens) and tokens[column + 1] != "-")
        if damaged is None:
            out.append(token)
            continue
        out.append(damaged)
        done.append(Damage(row, column, kind))
        merge_next = kind == "merge"
    return out, done


def _damage(token: str, kind: NoiseKind, rng: random.Random, *, has_next: bool) -> str | None:
    negative = token.startswith("(")
    if kind == "merge":
        return token if has_next else None
    if kind == "bracket":
        return (token[1:] if rng.random() < 0.5 else token[:-1]) if negative else None
    if kind == "lost_brackets":
        return token[1:-1] if negative else None
    digits = re.sub(r"\D", "", token)
    if len(digits) < 2:
        return None
    cut = rng.randrange(1, len(digits))
    misplaced = f"{digits[:cut]},{digits[cut:]}"
    if re.fullmatch(r"\d{1,3}(?:,\d{3})*", misplaced):
        return None  # the one cut that happens to be right is no damage
    return f"({misplaced})" if negative else misplaced
