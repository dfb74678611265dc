"""Chat rows into token ids with labels on the assistant's tokens only, and optional packing.

The assistant's tokens are found by rendering with the model's own chat template: the tokens a
turn adds after the prompt that asks for it (`add_generation_prompt`) are the assistant's, which
works with any template that renders a conversation as the concatenation of its turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transformers import PreTrainedTokenizerBase

from training.data.rows import ChatRow
from training.hf.template import template_messages

IGNORE = -100


@dataclass(frozen=True)
class Tokenized:
    """One training sequence."""

    input_ids: list[int]
    labels: list[int]
    position_ids: list[int]


def _ids(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, Any]], tools: Any, prompt: bool
) -> list[int]:
    out: Any = tokenizer.apply_chat_template(
        messages, tools=tools, add_generation_prompt=prompt, tokenize=True
    )
    return [int(i) for i in (out["input_ids"] if hasattr(out, "keys") else out)]


def tokenize_row(tokenizer: PreTrainedTokenizerBase, row: ChatRow, *, max_length: int) -> Tokenized | None:
    """Token ids and labels (-100 except on assistant turns); None when the conversation does not
    fit `max_length` or the template is not a concatenation of turns."""
    messages = template_messages(row.messages)
    tools = row.tools or None
    full = _ids(tokenizer, messages, tools, False)
    if len(full) > max_length:
        return None
    labels = [IGNORE] * len(full)
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        before = _ids(tokenizer, messages[:i], tools, True)
        upto = _ids(tokenizer, messages[: i + 1], tools, False)
        if full[: len(upto)] != upto or upto[: len(before)] != before:
            return None
        labels[len(before) : len(upto)] = upto[len(before) : len(upto)]
    return Tokenized(full, labels, list(range(len(full))))


def pack(sequences: Sequence[Tokenized], max_length: int) -> list[Tokenized]:
    """Whole sequences packed greedily into rows of at most `max_length` tokens; positions restart
    at each sequence (flash-attention kernels then keep them apart; other kernels let a sequence
    see the ones before it in its pack, as classic packing does)."""
    packs: list[Tokenized] = []
    ids: list[int] = []
    labels: list[int] = []
    positions: list[int] = []
    for seq in sorted(sequences, key=lambda s: -len(s.input_ids)):
        if ids and len(ids) + len(seq.input_ids) > max_length:
            packs.append(Tokenized(ids, labels, positions))
            ids, labels, positions = [], [], []
        ids, labels, positions = ids + seq.input_ids, labels + seq.labels, positions + seq.position_ids
    if ids:
        packs.append(Tokenized(ids, labels, positions))
    return packs
