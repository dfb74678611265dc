"""Group-relative policy optimisation (GRPO): the pure part, apart from any model or environment.

k rollouts of one task form a group. Each rollout's advantage is its reward minus the group's mean,
divided by the group's standard deviation (the sample one, n - 1, as TRL's `GRPOTrainer` computes
it), so a failure among successes has a negative advantage and lowers the probability of what it
did, and a success among failures raises it. A group whose rewards are all equal has no spread: its
advantages are 0, it teaches nothing, and it is counted. Every step of a rollout takes the rollout's
advantage. The objective per step is PPO's clipped ratio of the new to the sampling policy's
probability of the action taken, times the advantage, minus `kl` times the step's KL divergence to
the reference (the champion: the frozen base); the loss is its negative mean over the steps.

Both loops (`training.structured.grpo`, `training.hf.grpo`) draw their sampling seeds and batch
orders here, as functions of the seed, the round and the draw or epoch, and report a round as a
`RoundReport`.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor

from training.data.sources import LoadedTaskSet

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


@dataclass(frozen=True)
class RoundReport:
    """What one round sampled and how the update went."""

    round: int
    rollouts: int
    mean_reward: float
    """Mean verifier score of the round's rollouts (sampled with the adapter before this round's update)."""
    pass_rate: float
    groups: int
    groups_without_spread: int
    """Groups whose rollouts all scored the same: advantage 0, nothing learned from them."""
    steps_trained: int
    mean_kl: float
    """Mean KL to the reference over the steps of the round's last update pass."""
    loss: float
    seconds: float


def draw_seed(seed: int, round_: int, draw: int) -> int:
    """The sampling seed of one draw of one round (a function of the three only)."""
    return random.Random(f"{seed}:{round_}:{draw}").getrandbits(62)


def batches(count: int, settings: GrpoSettings, round_: int, epoch: int) -> list[list[int]]:
    """One epoch's order of `count` steps, shuffled by a function of the seed, the round and the
    epoch, cut into batches of `batch_size`."""
    order = list(range(count))
    random.Random(f"{settings.seed}:{round_}:{epoch}").shuffle(order)
    return [order[i : i + settings.batch_size] for i in range(0, count, settings.batch_size)]


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


def keyed_advantages(keys: Sequence[str], rewards: Sequence[float]) -> tuple[list[float], int, int]:
    """Each rollout's group-relative advantage (a group is the rollouts of one key, a task), the
    number of groups, and how many had no spread."""
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    out = [0.0] * len(keys)
    flat = 0
    for members in groups.values():
        values = group_advantages([rewards[i] for i in members])
        flat += all(v == 0.0 for v in values)
        for i, value in zip(members, values, strict=True):
            out[i] = value
    return out, len(groups), flat


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


def rollout_dataset(sets: Sequence[LoadedTaskSet]) -> dict[str, Any]:
    """The lineage's `dataset` of a GRPO run: the task sets it sampled, and their content hash."""
    source = {
        "kind": "grpo-rollouts",
        "task_sets": {s.label: s.set_hash for s in sets},
        "tasks": sum(len(s.tasks) for s in sets),
    }
    return source | {"content_hash": hashlib.sha256(json.dumps(source, sort_keys=True).encode()).hexdigest()}
