"""Group-relative policy optimisation (GRPO): the pure part, apart from any model or environment.

k rollouts of one task form a group. Each rollout's advantage is its reward minus the group's mean,
divided by the group's standard deviation (the sample one, n - 1, as TRL's `GRPOTrainer` computes
it), so a failure among successes has a negative advantage and lowers the probability of what it
did, and a success among failures raises it. A group whose rewards are all equal has no spread: its
advantages are 0, it teaches nothing, and it is counted. Every step of a rollout takes the rollout's
advantage. The objective per step is PPO's clipped ratio of the new to the sampling policy's
probability of the action taken, times the advantage, minus `kl` times the step's KL divergence to
the reference (the champion: the frozen base); the loss is its negative mean over the steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor

SPREAD_EPS = 1e-6
"""A group whose rewards' standard deviation is below this has no spread."""


@dataclass(frozen=True)
class GrpoSettings:
    """How rollouts are sampled and the adapter is updated (recorded in the lineage)."""

    k: int = 8
    """Rollouts per task (the group size)."""
    rounds: int = 4
    """On-policy rounds: sample with the current adapter, then update it."""
    temperature: float = 1.0
    """Sampling temperature (the log-probabilities are of the same tempered policy)."""
    kl: float = 0.05
    """Weight of the KL penalty to the reference (the base, adapter disabled)."""
    clip: float = 0.2
    """PPO's clip range of the probability ratio."""
    epochs: int = 2
    """Passes over each round's steps."""
    batch_size: int = 64
    """Steps per optimizer step."""
    lr: float = 1e-3
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    seed: int = 0
    """Seeds the adapter's initial weights, the sampling draws and the batch order."""
    env_seed: int = 0
    """Environment seed of every rollout."""
    threads: int = 1
    """CPU threads (fixed, for bit-identical runs; one is fastest for this small model)."""

    def __post_init__(self) -> None:
        if self.k < 2:
            raise ValueError(f"a group needs at least 2 rollouts, not k={self.k}")
        if self.rounds < 1 or self.epochs < 1 or self.batch_size < 1:
            raise ValueError("rounds, epochs and batch_size must be at least 1")
        if self.temperature <= 0:
            raise ValueError(f"GRPO samples: the temperature must be above 0, not {self.temperature}")
        if self.kl < 0 or not 0 < self.clip < 1:
            raise ValueError("kl must be >= 0 and clip in (0, 1)")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def group_advantages(rewards: Sequence[float]) -> tuple[float, ...]:
    """(reward - group mean) / group std for each rollout of one group; all 0 without spread."""
    n = len(rewards)
    if n < 2:
        return (0.0,) * n
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / (n - 1))
    if std < SPREAD_EPS:
        return (0.0,) * n
    return tuple((r - mean) / std for r in rewards)


def has_spread(rewards: Sequence[float]) -> bool:
    """Whether a group's rewards differ (it has something to teach)."""
    return any(a != 0.0 for a in group_advantages(rewards))


def clipped_objective(logp: Tensor, old_logp: Tensor, advantages: Tensor, clip: float) -> Tensor:
    """[S]: PPO's clipped surrogate per step: min(ratio * A, clip(ratio, 1 - c, 1 + c) * A)."""
    ratio = torch.exp(logp - old_logp)
    return torch.minimum(ratio * advantages, ratio.clamp(1.0 - clip, 1.0 + clip) * advantages)


def grpo_loss(
    logp: Tensor, old_logp: Tensor, advantages: Tensor, kl: Tensor, *, beta: float, clip: float
) -> Tensor:
    """The loss of a batch of steps: minus the mean clipped surrogate, plus `beta` times the mean KL."""
    return (-clipped_objective(logp, old_logp, advantages, clip) + beta * kl).mean()
