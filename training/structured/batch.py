"""Collating steps into tensors, the training loss, and greedy decoding of one observation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from training.structured.examples import Step
from training.structured.features import Encoded
from training.structured.model import StructuredPolicyModel
from training.structured.templates import Template, slot_kinds

KIND_CODE = {"str": 0, "num": 1}


def collate(encoded: Sequence[Encoded]) -> dict[str, Tensor]:
    """Pad a list of encoded observations into one batch."""
    b = len(encoded)
    n = max(1, max(len(e.kinds) for e in encoded))
    t = max(1, max(len(e.turns) for e in encoded))
    first = encoded[0]
    cats = np.zeros((b, n, first.cats.shape[1]), dtype=np.int64)
    nums = np.zeros((b, n, first.nums.shape[1]), dtype=np.float32)
    ids = np.zeros((b, n, first.ids.shape[1]), dtype=np.float32)
    kinds = np.full((b, n), 2, dtype=np.int64)
    item_mask = np.zeros((b, n), dtype=bool)
    turns = np.zeros((b, t, 4), dtype=np.int64)
    turn_mask = np.zeros((b, t), dtype=bool)
    for i, e in enumerate(encoded):
        k = len(e.kinds)
        cats[i, :k], nums[i, :k], ids[i, :k], kinds[i, :k] = e.cats, e.nums, e.ids, e.kinds
        item_mask[i, :k] = True
        turns[i, : len(e.turns)] = e.turns
        turn_mask[i, : len(e.turns)] = True
    return {
        "cats": torch.from_numpy(cats),
        "nums": torch.from_numpy(nums),
        "ids": torch.from_numpy(ids),
        "kinds": torch.from_numpy(kinds),
        "item_mask": torch.from_numpy(item_mask),
        "turns": torch.from_numpy(turns),
        "turn_mask": torch.from_numpy(turn_mask),
    }


def template_weights(steps: Sequence[Step], n_templates: int) -> Tensor:
    """Class weights of the decision loss: the inverse square root of each template's share of the
    steps (clipped to [0.2, 5]), so the one decisive write of a case counts against the reads every
    case starts with."""
    counts = torch.bincount(torch.tensor([s.template for s in steps]), minlength=n_templates).float()
    weights = (counts.clamp_min(1.0) / counts.sum() * n_templates).pow(-0.5).clamp(0.2, 5.0)
    return weights / weights[counts > 0].mean()


def loss(
    model: StructuredPolicyModel, steps: Sequence[Step], n_templates: int, weights: Tensor | None = None
) -> tuple[Tensor, dict[str, float]]:
    """Cross-entropy of the decision (weighted per template when `weights` are given) plus the
    pointer loss of every slot (the log of the probability mass on the items holding the right
    value)."""
    batch = collate([s.encoded for s in steps])
    state, items = model.encode(batch)
    logits = model.decision(state)[:, :n_templates]
    targets = torch.tensor([s.template for s in steps])
    decision = torch.nn.functional.cross_entropy(logits, targets, weight=weights)
    rows, slots, kinds, hits = [], [], [], []
    for i, step in enumerate(steps):
        for k, slot in enumerate(step.slots):
            rows.append(i)
            slots.append(k)
            kinds.append(KIND_CODE[slot.kind])
            hits.append(slot.targets)
    with torch.no_grad():
        stats = {
            "decision": float(decision),
            "accuracy": float((logits.argmax(-1) == targets).float().mean()),
        }
    if not rows:
        return decision, stats | {"pointer": 0.0}
    index = torch.tensor(rows)
    keys = model.pointer_keys(items, batch["ids"])
    scores = model.pointer_logits(state[index], keys[index], targets[index], torch.tensor(slots))
    allowed = batch["item_mask"][index] & (batch["kinds"][index] == torch.tensor(kinds)[:, None])
    positive = torch.zeros_like(allowed)
    flat_rows = [s for s, targets_s in enumerate(hits) for _ in targets_s]
    flat_cols = [t for targets_s in hits for t in targets_s]
    positive[flat_rows, flat_cols] = True
    scores = scores.masked_fill(~allowed, -1e9)
    pointer = (torch.logsumexp(scores, -1) - torch.logsumexp(scores.masked_fill(~positive, -1e9), -1)).mean()
    return decision + pointer, stats | {"pointer": float(pointer.detach())}


@torch.no_grad()
def decide(
    model: StructuredPolicyModel,
    encoded: Encoded,
    templates: Sequence[Template],
    allowed: Sequence[bool],
    *,
    temperature: float = 0.0,
    generator: torch.Generator | None = None,
) -> tuple[int, list[int]]:
    """The best template whose slots can all be filled, and the item chosen for each slot.

    With `temperature > 0` both are sampled instead: Gumbel noise on the scaled logits orders the
    templates as a draw without replacement from their softmax (the first that can be filled is
    taken), and each slot's item is drawn from its pointer softmax."""
    batch = collate([encoded])
    state, items = model.encode(batch)
    logits = model.decision(state)[0, : len(templates)].masked_fill(~torch.tensor(list(allowed)), -1e9)
    logits = _perturbed(logits, temperature, generator)
    for template in logits.argsort(descending=True).tolist():
        if not allowed[template]:
            break
        kinds = slot_kinds(templates[template])
        if not kinds:
            return template, []
        codes = torch.tensor([KIND_CODE[k] for k in kinds])
        fits = batch["item_mask"][0][None, :] & (batch["kinds"][0][None, :] == codes[:, None])
        if not bool(fits.any(-1).all()):
            continue
        scores = model.pointer_logits(
            state.expand(len(kinds), -1),
            model.pointer_keys(items, batch["ids"]).expand(len(kinds), -1, -1),
            torch.full((len(kinds),), template),
            torch.arange(len(kinds)),
        ).masked_fill(~fits, -1e9)
        return template, _perturbed(scores, temperature, generator).argmax(-1).tolist()
    raise ValueError("no template can be filled from this observation")


def _perturbed(logits: torch.Tensor, temperature: float, generator: torch.Generator | None) -> torch.Tensor:
    """`logits` for greedy choice, or `logits / temperature` plus Gumbel noise for sampling
    (masked entries stay far below every other)."""
    if temperature <= 0.0:
        return logits
    uniform = torch.rand(logits.shape, generator=generator).clamp(1e-12, 1.0 - 1e-7)
    return torch.where(logits > -1e8, logits / temperature - torch.log(-torch.log(uniform)), logits)
