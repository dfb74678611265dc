"""Observations as arrays: categorical ids, numeric features and value-identity vectors per item.

The identity vector of a value is a fixed pseudo-random unit vector drawn from a hash of its text:
equal values get equal vectors and different ones nearly orthogonal ones, so attention can tell
that the auth's payer is the claim's payer, or that a member id is the one on the claim, for values
no vocabulary could hold (ids, dates, amounts).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from training.structured.observe import Item, Observation
from training.structured.vocab import Vocab, value_token

ID_DIM = 32
KINDS = ("str", "num", "bool", "null", "date", "word", "derived")
OUTCOMES = ("work_item", "ok", "failed", "unknown", "pending")
MAX_RECENCY = 15
MAX_POS = 15
DAY_BUCKETS = 28
NUMERIC = 10
SCALARS = ("value", "days_from_today", "days_from_service")
"""Raw numbers appended after the numeric features; the model encodes them piecewise-linearly
over bins drawn from the training data's quantiles, which makes thresholds (a window of 90 days,
an approval limit) easy to learn."""
CATEGORICAL = (
    "path",
    "value",
    "qualifier",
    "tool",
    "kind",
    "recency",
    "outcome",
    "pos",
    "last",
    "word",
    "today",
    "service",
)
TURN_FIELDS = ("tool", "outcome", "recency", "error")


@dataclass(frozen=True)
class Encoded:
    """One observation, ready for the model."""

    cats: NDArray[np.int64]
    """[items, len(CATEGORICAL)]"""
    nums: NDArray[np.float32]
    """[items, NUMERIC + len(SCALARS)]"""
    ids: NDArray[np.float32]
    """[items, ID_DIM]"""
    kinds: NDArray[np.int64]
    """[items]: 0 for text-like values (copyable into strings), 1 for numbers, 2 for neither."""
    turns: NDArray[np.int64]
    """[turns, len(TURN_FIELDS)]"""


@lru_cache(maxsize=200_000)
def identity(text: str) -> NDArray[np.float32]:
    """The fixed pseudo-random unit vector of a value's text."""
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
    vector = np.random.default_rng(seed).standard_normal(ID_DIM).astype(np.float32)
    return vector / np.float32(np.linalg.norm(vector))


def day_bucket(days: int | None) -> int:
    """Signed log2 bucket of a day count (0 = unknown)."""
    if days is None:
        return 0
    if days == 0:
        return 14
    magnitude = min(12, 1 + int(math.log2(abs(days))))
    return 14 + magnitude if days > 0 else 14 - magnitude


def encode(obs: Observation, vocab: Vocab) -> Encoded:
    """Arrays for every item and turn of `obs`."""
    n_turns = len(obs.turns)
    outcomes = {0: "work_item"} | {i + 1: t.outcome for i, t in enumerate(obs.turns)}
    cats = np.zeros((len(obs.items), len(CATEGORICAL)), dtype=np.int64)
    nums = np.zeros((len(obs.items), NUMERIC + len(SCALARS)), dtype=np.float32)
    ids = np.zeros((len(obs.items), ID_DIM), dtype=np.float32)
    kinds = np.full(len(obs.items), 2, dtype=np.int64)
    for row, item in enumerate(obs.items):
        cats[row] = (
            vocab.paths.id(item.path),
            vocab.values.id(value_token(item)),
            vocab.qualifiers.id(item.qualifier),
            vocab.tools.id(item.tool),
            KINDS.index(item.kind),
            min(MAX_RECENCY, n_turns - item.turn),
            OUTCOMES.index(outcomes.get(item.turn, "pending")) if outcomes.get(item.turn) in OUTCOMES else 4,
            min(MAX_POS, item.index[-1]) if item.index else 0,
            _last(item),
            min(MAX_POS, item.word_pos),
            day_bucket(item.days_from_today),
            day_bucket(item.days_from_service),
        )
        nums[row] = _numeric(item) + _scalars(item)
        text = _identity_text(item)
        if text is not None:
            ids[row] = identity(text)
        kinds[row] = (
            0 if item.kind in ("str", "date", "word") else 1 if item.kind in ("num", "derived") else 2
        )
    turns = np.array(
        [
            (
                vocab.tools.id(t.tool),
                OUTCOMES.index(t.outcome) if t.outcome in OUTCOMES else 4,
                min(MAX_RECENCY, n_turns - i),
                int(hashlib.blake2b(t.error_kind.encode(), digest_size=2).hexdigest(), 16) % 15 + 1
                if t.error_kind
                else 0,
            )
            for i, t in enumerate(obs.turns, start=1)
        ],
        dtype=np.int64,
    ).reshape(n_turns, len(TURN_FIELDS))
    return Encoded(cats=cats, nums=nums, ids=ids, kinds=kinds, turns=turns)


def _last(item: Item) -> int:
    """1 when the item sits in the last element of its outermost list (the latest remittance), 2 when
    not, 0 outside lists."""
    return 0 if not item.last else 1 if item.last[0] else 2


def _numeric(item: Item) -> list[float]:
    value = item.value if isinstance(item.value, float) else None
    today, service = item.days_from_today, item.days_from_service
    return [
        0.0 if value is None else math.copysign(1.0, value) if value else 0.0,
        0.0 if value is None else math.log1p(abs(value)) / 8.0,
        0.0 if value is None else max(-5.0, min(5.0, value / 1000.0)),
        0.0 if value is None else max(-5.0, min(5.0, value / 100.0)),
        0.0 if value is None else float(abs(value * 100 - round(value) * 100) > 0.5),
        1.0 if today is not None else 0.0,
        0.0 if today is None else max(-5.0, min(5.0, today / 100.0)),
        1.0 if service is not None else 0.0,
        0.0 if service is None else max(-5.0, min(5.0, service / 100.0)),
        1.0 if item.kind == "derived" else 0.0,
    ]


def _scalars(item: Item) -> list[float]:
    value = item.value if isinstance(item.value, float) else 0.0
    return [value, float(item.days_from_today or 0), float(item.days_from_service or 0)]


_PRESENT = (1, 5, 7)
"""Numeric-feature columns that are non-zero when each scalar channel is present."""


def scalar_bins(encoded: list[Encoded], bins: int = 48) -> list[list[float]]:
    """Quantile bin edges of each scalar channel over the items that have it (for the model's
    piecewise-linear encoding)."""
    edges = []
    for channel, flag in enumerate(_PRESENT):
        parts = [e.nums[e.nums[:, flag] != 0, NUMERIC + channel] for e in encoded]
        values = np.concatenate(parts) if parts else np.zeros(1, dtype=np.float32)
        found = np.unique(np.quantile(values if values.size else np.zeros(1), np.linspace(0, 1, bins + 1)))
        if found.size < 2:
            found = np.array([found[0] - 1.0, found[0] + 1.0])
        edges.append([float(x) for x in found])
    return edges


def _identity_text(item: Item) -> str | None:
    if item.value is None or isinstance(item.value, bool):
        return None
    if isinstance(item.value, float):
        return f"n:{item.value:.2f}"
    return f"s:{item.value}"
