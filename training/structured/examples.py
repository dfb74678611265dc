"""Training examples of the structured policy: one per assistant turn of each chat row.

Each turn's observation (everything before it) is encoded, and its action abstracted into a
template and slots. A row with an action the policy cannot produce by copying (a value found
nowhere in the conversation, such as half of a balance) is left out whole, and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from training.data.rows import ChatRow
from training.structured.features import Encoded, encode
from training.structured.observe import Item, observe
from training.structured.templates import Abstracted, Slot, Template, abstract
from training.structured.vocab import Vocab, build_vocab


@dataclass(frozen=True)
class Step:
    """One decision to learn."""

    encoded: Encoded
    template: int
    slots: tuple[Slot, ...]
    row: int
    """Index of the row it came from."""


@dataclass(frozen=True)
class Prepared:
    """Steps of the rows the policy can learn, and what was left out."""

    steps: list[Step]
    rows_used: int
    rows_skipped: int


def abstract_row(row: ChatRow) -> list[Abstracted] | None:
    """The actions of a row, or None when one of them cannot be produced by copying."""
    actions = []
    for i, message in enumerate(row.messages):
        if message.get("role") != "assistant":
            continue
        action = abstract(message, observe(row.messages[:i], row.tools), row.tools)
        if action.uncopied:
            return None
        actions.append(action)
    return actions


def vocab_from_rows(rows: Iterable[ChatRow], **kwargs: int) -> Vocab:
    """A vocabulary over every learnable row (values seen in at least `min_episodes` rows)."""

    def episodes() -> Iterable[tuple[list[Item], list[Template]]]:
        for row in rows:
            actions = abstract_row(row)
            if actions is not None:
                yield observe(row.messages, row.tools).items, [a.template for a in actions]

    return build_vocab(episodes(), **kwargs)


def prepare(
    rows: Sequence[ChatRow],
    vocab: Vocab,
    *,
    grow: bool = False,
    max_slots: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Prepared:
    """Encode every step of every learnable row; `grow` adds unseen templates to the vocabulary
    (an adapter learning new actions), otherwise rows that need one are skipped. A row with a call
    of more arguments to fill than `max_slots` (a trained model's slot table) is skipped too: that
    model cannot point at them."""
    steps: list[Step] = []
    used = skipped = 0
    for index, row in enumerate(rows):
        if progress is not None:
            progress(index + 1, len(rows))
        row_steps = _row_steps(row, index, vocab, grow=grow)
        if row_steps is not None and max_slots is not None:
            row_steps = None if any(len(s.slots) > max_slots for s in row_steps) else row_steps
        if row_steps is None:
            skipped += 1
            continue
        used += 1
        steps += row_steps
    return Prepared(steps, used, skipped)


def _row_steps(row: ChatRow, index: int, vocab: Vocab, *, grow: bool) -> list[Step] | None:
    out = []
    for i, message in enumerate(row.messages):
        if message.get("role") != "assistant":
            continue
        obs = observe(row.messages[:i], row.tools)
        action = abstract(message, obs, row.tools)
        if action.uncopied:
            return None
        template = vocab.add_template(action.template) if grow else vocab.template_id(action.template)
        if template is None:
            return None
        encoded = encode(obs, vocab)
        compact = Encoded(
            cats=encoded.cats.astype(np.int32),
            nums=encoded.nums,
            ids=encoded.ids.astype(np.float16),
            kinds=encoded.kinds.astype(np.int8),
            turns=encoded.turns.astype(np.int32),
        )
        out.append(Step(compact, template, action.slots, index))
    return out
