"""The compositional decoder behind the chat interface, and its training from gold rows.

Decoding is greedy (or sampled at `temperature` > 0 from a seeded generator): the tool among those
offered (or the closing message), then, walking its schema, each node's mode among those its type
allows and that the observation can fill, its enum member or text frame, and its pointers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from adapters.chat import Message, arguments_text
from engine import EpisodeView, PolicyReply, parse_arguments, written
from schemas.events import PolicyRef, SamplingParams
from training.data.rows import ChatRow
from training.determinism import seed_everything
from training.loop import LoopConfig, LoopResult, StepReport, TrainingLoop
from training.structured.batch import KIND_CODE, collate
from training.structured.calls import FINAL, MODE, MODES, Choice, build
from training.structured.composed import (
    ComposedPolicyModel,
    ComposedStep,
    ComposedVocab,
    composed_loss,
    load_composed,
    member_ids,
    prepare_composed,
    tool_weights,
)
from training.structured.examples import vocab_from_rows
from training.structured.features import encode, scalar_bins
from training.structured.model import ModelConfig
from training.structured.observe import observe
from training.structured.templates import Slot
from training.structured.vocab import Vocab

_POINTERS = {MODE["copy"]: 1, MODE["add"]: 2, MODE["sub"]: 2, MODE["mul"]: 2, MODE["div"]: 2}


class NoCall(ValueError):
    """The observation cannot fill any mode a node allows."""


class ComposedPolicy:
    """Decoding of a `ComposedPolicyModel`."""

    def __init__(
        self,
        model: ComposedPolicyModel,
        vocab: Vocab,
        composed: ComposedVocab,
        name: str = "loopline-structured-composed",
        *,
        temperature: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.model = model.eval()
        self.vocab, self.composed, self._name = vocab, composed, name
        self.temperature = temperature
        self.generator = torch.Generator().manual_seed(seed)
        self.ref = PolicyRef(model=name, route="scripted")
        self.sampling = SamplingParams()

    @property
    def name(self) -> str:
        return self._name

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        """The next turn, from `messages` alone (`view` is unused)."""
        obs = observe(messages, tools)
        batch = collate([encode(obs, self.vocab)])
        head, composed = self.model.head, self.composed
        with torch.inference_mode():
            state, items = self.model.encoder.encode(batch)
            keys = head.keys(items, batch["ids"])[0]
            kinds = batch["kinds"][0]
            present = {code for code in KIND_CODE.values() if bool((kinds == code).any())}
            offered = [composed.tool_table.id(t) for t in (FINAL, *obs.offered)]
            logits = head.tool(state)[0]
            allowed = torch.full_like(logits, -1e9)
            allowed[offered] = 0.0
            order = self._perturbed(logits + allowed).argsort(descending=True).tolist()
            for tool_id in order[: len(offered)]:
                tool = composed.tool_table.names[tool_id]
                decide = _Decider(self, state[0], keys, kinds, present)
                try:
                    arguments = build(tool, tools, obs.items, decide)
                except NoCall:
                    continue
                if tool == FINAL:
                    return written(str(arguments))
                call = parse_arguments(f"call-{len(obs.turns) + 1}", tool, arguments_text(arguments))
                return written(None, (call,))
        return written("no action fits: no offered tool can be filled from this observation")

    def _perturbed(self, logits: Tensor) -> Tensor:
        if self.temperature <= 0.0:
            return logits
        uniform = torch.rand(logits.shape, generator=self.generator).clamp(1e-12, 1.0 - 1e-7)
        return torch.where(logits > -1e8, logits / self.temperature - torch.log(-torch.log(uniform)), logits)


@dataclass
class _Decider:
    policy: ComposedPolicy
    state: Tensor
    keys: Tensor
    kinds: Tensor
    present: set[int]

    def __call__(
        self, path: str, position: int, allowed: tuple[int, ...], holes: Sequence[Slot] | None
    ) -> Choice:
        head, composed = self.policy.model.head, self.policy.composed
        hidden = head.nodes(
            self.state[None], torch.tensor([composed.path_table.id(path)]), torch.tensor([position])
        )[0]
        frames = composed.frames_of(path)
        usable = [m for m in allowed if self._fillable(m, frames)]
        if not usable:
            raise NoCall(path)
        mask = torch.full((len(MODES),), -1e9)
        mask[usable] = 0.0
        mode = int(self.policy._perturbed(head.mode(hidden) + mask).argmax())
        name = MODES[mode]
        if name == "enum":
            members = composed.members.get(path, [])
            scores = head.member_key(torch.from_numpy(np.stack([member_ids(m) for m in members]))) @ hidden
            return Choice(mode, members[int(self.policy._perturbed(scores / math.sqrt(head.d)).argmax())])
        if name == "text":
            frame_mask = torch.full((self.policy.model.frame_capacity,), -1e9)
            fillable = [f for f in frames if self._frame_fits(composed.frames[f])]
            frame_mask[fillable] = 0.0
            frame = int(self.policy._perturbed(head.frame(hidden) + frame_mask).argmax())
            kinds = _hole_kinds(composed.frames[frame])
            return Choice(mode, composed.frames[frame], self._point(hidden, kinds, frame))
        if mode in _POINTERS:
            kind = "str" if MODES[mode] == "copy" and _is_string(allowed) else "num"
            return Choice(mode, "", self._point(hidden, [kind] * _POINTERS[mode], -1))
        return Choice(mode)

    def _fillable(self, mode: int, frames: list[int]) -> bool:
        name = MODES[mode]
        if name == "text":
            return any(self._frame_fits(self.policy.composed.frames[f]) for f in frames)
        if mode in _POINTERS:
            return bool(self.present)
        return True

    def _frame_fits(self, frame: str) -> bool:
        return all(KIND_CODE[k] in self.present for k in _hole_kinds(frame))

    def _point(self, hidden: Tensor, kinds: Sequence[str], frame: int) -> tuple[int, ...]:
        if not kinds:
            return ()
        head = self.policy.model.head
        n = len(kinds)
        codes = torch.tensor([KIND_CODE[k] for k in kinds])
        fits = self.kinds[None, :] == codes[:, None]
        if not bool(fits.any(-1).all()):
            raise NoCall("no item of a pointer's kind")
        scores = head.pointer(
            hidden.expand(n, -1), torch.arange(n), torch.full((n,), frame), self.keys.expand(n, -1, -1)
        ).masked_fill(~fits, -1e9)
        return tuple(self.policy._perturbed(scores).argmax(-1).tolist())


def _is_string(allowed: tuple[int, ...]) -> bool:
    """A copy node that allows no derived number is a string's."""
    return MODE["add"] not in allowed


def _hole_kinds(frame: str) -> list[str]:
    import json

    found: dict[int, str] = {}
    for part in json.loads(frame):
        if isinstance(part, dict):
            found[int(part["$hole"])] = "str" if part["fmt"] == "s" else "num"
    return [found[i] for i in sorted(found)]


@dataclass
class FittedComposed:
    model: ComposedPolicyModel
    vocab: Vocab
    composed: ComposedVocab
    rows_used: int
    rows_skipped: int
    steps: int
    result: LoopResult


def fit_composed(
    rows: Sequence[ChatRow],
    *,
    d_model: int,
    layers: int,
    heads: int,
    loop: LoopConfig,
    checkpoint_dir: Path | None = None,
    on_step: Callable[[StepReport], None] | None = None,
) -> FittedComposed:
    """Vocabularies, decisions of every buildable row, a fresh model, and training from scratch."""
    vocab = vocab_from_rows(rows)
    composed = ComposedVocab.of_tools([row.tools for row in rows])
    steps, used, skipped = prepare_composed(rows, vocab, composed)
    seed_everything(loop.seed)
    config = ModelConfig(
        paths=len(vocab.paths),
        values=len(vocab.values),
        qualifiers=len(vocab.qualifiers),
        tools=len(vocab.tools),
        templates=1,
        d_model=d_model,
        layers=layers,
        heads=heads,
        ff=2 * d_model,
        scalar_edges=tuple(tuple(e) for e in scalar_bins([s.encoded for s in steps])),
    )
    model = ComposedPolicyModel(config, composed, frame_capacity=max(64, 2 * len(composed.frames)))

    weights = tool_weights(steps, composed)

    def loss_fn(batch: Sequence[ComposedStep]) -> tuple[torch.Tensor, dict[str, float]]:
        return composed_loss(model, batch, composed, weights)

    result = TrainingLoop(
        model,
        loss_fn,
        steps,
        [len(s.encoded.kinds) for s in steps],
        loop,
        checkpoint_dir=checkpoint_dir,
        on_step=on_step,
    ).run()
    return FittedComposed(model, vocab, composed, used, skipped, len(steps), result)


def load_composed_policy(folder: Path, *, name: str | None = None) -> ComposedPolicy:
    model, vocab, composed, manifest = load_composed(folder)
    return ComposedPolicy(model, vocab, composed, name or str(manifest.get("name", folder.name)))
