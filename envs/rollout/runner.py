"""Run a policy over a task set with N worker processes; results do not depend on N.

Every task runs in a fresh environment with the same seed, so a task's trajectory depends only on
the task, the policy and the seed, never on which worker ran it or when. Records come back to the
parent, which hands them to the sink in task order (streaming: as soon as the next one in order is
done), so the event file is the same for any number of workers, up to ids and timings.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from engine import EventSink
from envs.env import DEFAULT_MAX_STEPS
from envs.rollout.episode import EpisodeRecord, run_episode
from envs.rollout.policy import Policy
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task


@dataclass(frozen=True)
class RolloutConfig:
    """What every rollout of a run shares (shipped to the workers)."""

    seed: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    tenant: str = "sim"


def rollout_one(task: Task, policy: Policy, config: RolloutConfig) -> EpisodeRecord:
    """One rollout, resolving the domain and verifier by name (works in any process)."""
    return run_episode(
        task,
        policy,
        verifier=VERIFIERS.get(task.verifier.verifier),
        seed=config.seed,
        max_steps=config.max_steps,
        tenant=config.tenant,
    )


def run_rollouts(
    tasks: Sequence[Task],
    policy: Policy,
    *,
    workers: int = 1,
    config: RolloutConfig | None = None,
    sink: EventSink | None = None,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[EpisodeRecord]:
    """Roll `policy` out on every task; records in task order.

    `workers > 1` uses processes (started with `spawn`, which is safe next to the threads of a
    progress bar); the policy must then be picklable. `on_record` is called in the parent as each
    rollout finishes, in completion order (for progress bars).
    """
    config = config or RolloutConfig()
    if workers < 1:
        raise ValueError("workers must be at least 1")
    ordered = _OrderedSink(len(tasks), sink)
    if workers == 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            record = rollout_one(task, policy, config)
            ordered.add(index, record)
            if on_record:
                on_record(record)
        return ordered.records()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=context) as pool:
        futures: dict[Future[EpisodeRecord], int] = {
            pool.submit(rollout_one, task, policy, config): index for index, task in enumerate(tasks)
        }
        for future in as_completed(futures):
            record = future.result()
            ordered.add(futures[future], record)
            if on_record:
                on_record(record)
    return ordered.records()


class _OrderedSink:
    """Collects records by index and writes each one's events once all before it are written."""

    def __init__(self, size: int, sink: EventSink | None) -> None:
        self._records: list[EpisodeRecord | None] = [None] * size
        self._next = 0
        self._sink = sink

    def add(self, index: int, record: EpisodeRecord) -> None:
        self._records[index] = record
        while self._next < len(self._records) and (ready := self._records[self._next]) is not None:
            if self._sink is not None:
                for event in ready.events:
                    self._sink.append(event)
            self._next += 1

    def records(self) -> list[EpisodeRecord]:
        done = [r for r in self._records if r is not None]
        assert len(done) == len(self._records), "every rollout returns a record"
        return done
