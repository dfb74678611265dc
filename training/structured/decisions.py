"""What the structured policy chose at one step, and the log-probabilities of such choices under a model.

A sampled step is a template drawn from the softmax of the decision logits over the templates that
can be filled (Gumbel noise orders the templates, the first that fits is taken: a draw from the
softmax restricted to them), then one item per slot drawn from its pointer softmax over the items
of the slot's kind. `log_probs` gives, for a batch of recorded steps, the log-probability of each
step's choice (template plus every slot's item) and the log-distributions it was drawn from, so
policy-gradient methods can score the actions the policy really took, and compare whole
distributions against another model's (an exact KL per step).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from training.structured.batch import KIND_CODE, collate
from training.structured.features import Encoded
from training.structured.model import StructuredPolicyModel
from training.structured.templates import Template, slot_kinds

NEG = -1e9
"""Logit of a choice that is not available (far below any other, finite so sums stay finite)."""


@dataclass(frozen=True)
class Decision:
    """One step as the policy took it."""

    encoded: Encoded
    allowed: tuple[bool, ...]
    """Per template: its tool is offered (or it is a closing message)."""
    template: int
    picks: tuple[int, ...]
    """The item chosen for each of the template's slots."""


@dataclass(frozen=True)
class StepDistributions:
    """Log-distributions of a batch of steps and the log-probability of each step's choice."""

    action: Tensor
    """[S]: log-probability of each step's template and items."""
    decision: Tensor
    """[S, T]: log-softmax over the templates that can be filled (the others at about -1e9)."""
    pointer: Tensor
    """[P, N]: log-softmax over the items of each slot's kind, one row per slot of every step."""
    slot_step: Tensor
    """[P]: the step each pointer row belongs to."""


def fillable(encoded: Encoded, templates: Sequence[Template], allowed: Sequence[bool]) -> list[bool]:
    """Per template: allowed, and every slot has at least one item of its kind (what decoding can take)."""
    return _fillable(encoded, [_needs(t) for t in templates], allowed)


def _needs(template: Template) -> frozenset[int]:
    return frozenset(KIND_CODE[kind] for kind in slot_kinds(template))


def _fillable(encoded: Encoded, needs: Sequence[frozenset[int]], allowed: Sequence[bool]) -> list[bool]:
    present = {code for code in KIND_CODE.values() if bool((encoded.kinds == code).any())}
    return [bool(ok) and need <= present for need, ok in zip(needs, allowed, strict=True)]


def log_probs(
    model: StructuredPolicyModel,
    steps: Sequence[Decision],
    templates: Sequence[Template],
    *,
    temperature: float = 1.0,
) -> StepDistributions:
    """The distributions the steps' choices were drawn from (logits divided by `temperature`, as
    sampling divides them) and the log-probability of each choice, with gradients."""
    if not steps:
        raise ValueError("no steps")
    if temperature <= 0:
        raise ValueError(f"temperature must be above 0, not {temperature}")
    n = len(templates)
    batch = collate([s.encoded for s in steps])
    state, items = model.encode(batch)
    needs = [_needs(t) for t in templates]
    masks = torch.tensor([_fillable(s.encoded, needs, s.allowed) for s in steps])
    logits = (model.decision(state)[:, :n] / temperature).masked_fill(~masks, NEG)
    decision = torch.log_softmax(logits, -1)
    chosen = torch.tensor([s.template for s in steps])
    action = decision.gather(1, chosen[:, None])[:, 0]
    rows, slots, kinds, picks = [], [], [], []
    for i, step in enumerate(steps):
        step_kinds = slot_kinds(templates[step.template])
        if len(step_kinds) != len(step.picks):
            raise ValueError(f"step {i}: {len(step.picks)} picks for {len(step_kinds)} slots")
        for k, kind in enumerate(step_kinds):
            rows.append(i)
            slots.append(k)
            kinds.append(KIND_CODE[kind])
            picks.append(step.picks[k])
    if not rows:
        empty = torch.zeros((0, items.shape[1]))
        return StepDistributions(action, decision, empty, torch.zeros(0, dtype=torch.long))
    index = torch.tensor(rows)
    keys = model.pointer_keys(items, batch["ids"])
    scores = model.pointer_logits(state[index], keys[index], chosen[index], torch.tensor(slots))
    fits = batch["item_mask"][index] & (batch["kinds"][index] == torch.tensor(kinds)[:, None])
    pointer = torch.log_softmax((scores / temperature).masked_fill(~fits, NEG), -1)
    picked = pointer.gather(1, torch.tensor(picks)[:, None])[:, 0]
    action = action + torch.zeros_like(action).index_add(0, index, picked)
    return StepDistributions(action, decision, pointer, index)


def step_kl(policy: StepDistributions, reference: StepDistributions) -> Tensor:
    """[S]: KL(policy || reference) of each step: over the templates, plus over each slot's items
    (the slots of the template the step took). Exact, not a sample estimate; 0 for equal models."""
    decision = _kl_rows(policy.decision, reference.decision)
    if policy.pointer.shape[0] == 0:
        return decision
    pointer = _kl_rows(policy.pointer, reference.pointer)
    return decision + torch.zeros_like(decision).index_add(0, policy.slot_step, pointer)


def _kl_rows(log_p: Tensor, log_q: Tensor) -> Tensor:
    p = log_p.exp()
    return torch.where(p > 0, p * (log_p - log_q), torch.zeros_like(p)).sum(-1)
