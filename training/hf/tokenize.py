"""Chat rows into token ids with labels on the assistant's tokens only, and optional packing.

Every row is rendered with the model's own chat template from `template_messages` (what
serve-policy renders), and checked *prefix by prefix*: for each assistant turn, the prompt that
asks for it (`add_generation_prompt`) must be a prefix of the conversation up to that turn, which
must be a prefix of the whole. That is what makes the training context the context the model is
served with. A row that fails it, does not render, or is longer than `max_length` is left out and
counted by reason (`Tokenization.skipped`), never dropped silently.

Labels: with a template that marks the assistant's turns (`{% generation %}`), exactly the marked
tokens, as TRL's `assistant_only_loss` takes them; otherwise the tokens a turn adds after the
prompt that asks for it.

Packing (`pack`) concatenates whole sequences with positions restarting at each; `collate` then
passes no 2-D attention mask, so transformers builds a block-diagonal causal mask from the
positions (each sequence attends to itself only, with any attention kernel), and padding is a
sequence of its own that nothing attends to. The forward pass must run with `use_cache=False`
(transformers skips that mask when a cache is passed; TRL's trainer does the same).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from transformers import PreTrainedTokenizerBase

from training.data.rows import ChatRow, template_messages

IGNORE = -100

SkipReason = Literal["too-long", "not-prefix", "does-not-render"]


@dataclass(frozen=True)
class Tokenized:
    """One training sequence."""

    input_ids: list[int]
    labels: list[int]
    position_ids: list[int]


@dataclass(frozen=True)
class Skipped:
    """A row left out of training, and why."""

    task_id: str
    reason: SkipReason
    detail: str


@dataclass(frozen=True)
class Tokenization:
    """The rows that train, and every row that was left out with its reason."""

    sequences: list[Tokenized]
    skipped: list[Skipped] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    """The index of each sequence's row among the rows given."""

    def counts(self) -> dict[str, int]:
        """Rows left out, by reason."""
        return dict(Counter(s.reason for s in self.skipped))

    def report(self) -> str:
        """One line: rows used, and rows left out by reason with the first task ids."""
        if not self.skipped:
            return f"{len(self.sequences)} rows tokenized, none left out"
        parts = []
        for reason, n in self.counts().items():
            first = [s.task_id for s in self.skipped if s.reason == reason][:3]
            parts.append(f"{n} {reason} (e.g. {', '.join(first)})")
        return f"{len(self.sequences)} rows tokenized, {len(self.skipped)} left out: " + "; ".join(parts)


_GENERATION = re.compile(r"\{%-?\s*generation\s*-?%\}")


def has_generation_markers(tokenizer: PreTrainedTokenizerBase) -> bool:
    """Whether the tokenizer's chat template marks the assistant's turns (`{% generation %}`)."""
    template = tokenizer.chat_template
    return isinstance(template, str) and _GENERATION.search(template) is not None


def _render(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, Any]], tools: Any, *, prompt: bool
) -> list[int]:
    out: Any = tokenizer.apply_chat_template(
        messages, tools=tools, add_generation_prompt=prompt, tokenize=True
    )
    return [int(i) for i in (out["input_ids"] if hasattr(out, "keys") else out)]


def _assistant_mask(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, Any]], tools: Any
) -> list[int]:
    out: Any = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    return [int(m) for m in out["assistant_masks"]]


def tokenize_row(tokenizer: PreTrainedTokenizerBase, row: ChatRow, *, max_length: int) -> Tokenized | Skipped:
    """Token ids and labels (-100 except on the assistant's tokens), or why the row is left out."""
    messages = template_messages(row.messages)
    tools = row.tools or None
    try:
        full = _render(tokenizer, messages, tools, prompt=False)
        if len(full) > max_length:
            return Skipped(row.meta.task_id, "too-long", f"{len(full)} tokens > {max_length}")
        spans = []
        for i, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            before = _render(tokenizer, messages[:i], tools, prompt=True)
            upto = _render(tokenizer, messages[: i + 1], tools, prompt=False)
            if full[: len(upto)] != upto or upto[: len(before)] != before:
                return Skipped(
                    row.meta.task_id, "not-prefix", f"assistant turn {i} is not rendered prefix by prefix"
                )
            spans.append((len(before), len(upto)))
        mask = _assistant_mask(tokenizer, messages, tools) if has_generation_markers(tokenizer) else None
    except Exception as exc:  # jinja's TemplateError and anything a template raises
        return Skipped(row.meta.task_id, "does-not-render", f"{type(exc).__name__}: {exc}"[:300])
    labels = [IGNORE] * len(full)
    if mask is not None:
        labels = [t if m else IGNORE for t, m in zip(full, mask, strict=True)]
    else:
        for start, end in spans:
            labels[start:end] = full[start:end]
    return Tokenized(full, labels, list(range(len(full))))


def tokenize_rows(
    tokenizer: PreTrainedTokenizerBase, rows: Sequence[ChatRow], *, max_length: int
) -> Tokenization:
    """Every row tokenized, or counted as left out with its reason."""
    sequences: list[Tokenized] = []
    skipped: list[Skipped] = []
    kept: list[int] = []
    for index, row in enumerate(rows):
        done = tokenize_row(tokenizer, row, max_length=max_length)
        if isinstance(done, Skipped):
            skipped.append(done)
        else:
            sequences.append(done)
            kept.append(index)
    return Tokenization(sequences, skipped, kept)


def pack(sequences: Sequence[Tokenized], max_length: int) -> list[Tokenized]:
    """Whole sequences packed greedily into rows of at most `max_length` tokens; positions restart
    at each sequence, which is what keeps them apart in attention (`collate`)."""
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


def is_packed(sequence: Tokenized) -> bool:
    """Whether the sequence holds more than one conversation (its positions restart)."""
    return any(b != a + 1 for a, b in zip(sequence.position_ids, sequence.position_ids[1:], strict=False))


def collate(batch: Sequence[Tokenized], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-padded tensors; padding is masked out of attention and loss. A batch holding a packed
    sequence has no 2-D mask: transformers then masks attention per sequence from the restarting
    positions (padding gets positions from 0, a sequence of its own)."""
    width = max(len(s.input_ids) for s in batch)
    packed = any(is_packed(s) for s in batch)
    ids = torch.full((len(batch), width), pad_id)
    labels = torch.full((len(batch), width), IGNORE)
    positions = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, s in enumerate(batch):
        n = len(s.input_ids)
        ids[i, :n], labels[i, :n] = torch.tensor(s.input_ids), torch.tensor(s.labels)
        positions[i, :n], mask[i, :n] = torch.tensor(s.position_ids), 1
        positions[i, n:] = torch.arange(width - n)
    tensors = {"input_ids": ids, "labels": labels, "position_ids": positions}
    if not packed:
        tensors["attention_mask"] = mask
    return tensors
