"""Rejection-sampling fine-tuning: sample k rollouts per task through the environment with the
current policy at a temperature, keep those the task's verifier passes, and build a dataset of them.

The dataset is the same as `train dataset` builds (same rows, PHI surrogates, replay mix and
manifest), except that the primary rows are the kept rollouts instead of the gold, and the
manifest records how they were sampled. Training a LoRA on it is `train sft`'s job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol, runtime_checkable

from engine import Policy
from envs.rollout.episode import EpisodeRecord
from envs.rollout.runner import RolloutConfig, run_rollouts
from schemas.tools import ToolCall
from training.data.builder import DatasetSpec
from training.data.sources import LoadedTaskSet, task_key


@runtime_checkable
class SamplingPolicy(Policy, Protocol):
    """A policy that can decode at a temperature from a seeded generator."""

    def sample(self, temperature: float, seed: int) -> None:
        """Decode at `temperature` from here on (0 = greedy), seeded with `seed`."""
        ...


@dataclass(frozen=True)
class RftSettings:
    """How rollouts are sampled."""

    k: int = 4
    """Rollouts per task."""
    temperature: float = 1.0
    """Sampling temperature of the policy's decisions."""
    seed: int = 0
    """Sampling seed of the first rollout of each task; the i-th uses `seed + i`."""
    env_seed: int = 0
    """Environment seed of every rollout (and of the replay that renders a kept one)."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k must be at least 1, not {self.k}")
        if self.temperature <= 0:
            raise ValueError(f"rejection sampling needs a temperature above 0, not {self.temperature}")


@dataclass(frozen=True)
class Sampled:
    """One rollout of one task."""

    task_key: str
    draw: int
    calls: tuple[ToolCall, ...]
    passed: bool


def sample_rollouts(
    policy: SamplingPolicy,
    sets: Sequence[LoadedTaskSet],
    settings: RftSettings,
    *,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[Sampled]:
    """k rollouts of every task, each scored by the task's verifier; the policy is greedy again after."""
    tasks = [t for s in sets for t in s.tasks]
    keys = [task_key(t) for t in tasks]
    found: list[Sampled] = []
    try:
        for draw in range(settings.k):
            policy.sample(settings.temperature, settings.seed + draw)
            records = run_rollouts(
                tasks,
                policy,
                config=RolloutConfig(seed=settings.env_seed),
                on_record=on_record,
            )
            found += [
                Sampled(key, draw, r.calls, r.verdict.passed) for key, r in zip(keys, records, strict=True)
            ]
    finally:
        policy.sample(0.0, settings.seed)
    return found


def call_shape(calls: Sequence[ToolCall]) -> str:
    """The calls' names and arguments as one string (ids left out): equal for the same trajectory."""
    return "|".join(f"{c.name}:{c.model_dump_json(include={'arguments'})}" for c in calls)


def kept(samples: Sequence[Sampled]) -> dict[str, list[tuple[str, tuple[ToolCall, ...]]]]:
    """The passing rollouts per task, each distinct call sequence once, named `sample-<draw>`."""
    out: dict[str, list[tuple[str, tuple[ToolCall, ...]]]] = {}
    seen: set[tuple[str, str]] = set()
    for sample in samples:
        if not sample.passed:
            continue
        shape = call_shape(sample.calls)
        if (sample.task_key, shape) in seen:
            continue
        seen.add((sample.task_key, shape))
        out.setdefault(sample.task_key, []).append((f"sample-{sample.draw}", sample.calls))
    return out


def rft_spec(
    name: str,
    primary: Sequence[LoadedTaskSet],
    samples: Sequence[Sampled],
    settings: RftSettings,
    *,
    policy: str,
    replay: Sequence[LoadedTaskSet] = (),
    replay_ratio: float = 0.5,
    replay_seed: int = 0,
) -> DatasetSpec:
    """The dataset of the kept rollouts of `primary`, mixed with `replay` like any other dataset."""
    trajectories = kept(samples)
    return DatasetSpec(
        name=name,
        primary=tuple(primary),
        replay=tuple(replay),
        replay_ratio=replay_ratio,
        seed=replay_seed,
        trajectories=trajectories,
        sampling={
            "method": "rejection-sampling",
            "policy": policy,
            **asdict(settings),
            "rollouts": len(samples),
            "passed": sum(s.passed for s in samples),
            "kept": sum(len(v) for v in trajectories.values()),
            "tasks": len({s.task_key for s in samples}),
            "tasks_with_a_pass": len(trajectories),
        },
    )
