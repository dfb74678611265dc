"""Archived production events for tests: gold rollouts of real tasks, scored by their verifier, with
later business outcomes appended to their streams as the bridge appends them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from envs.rollout.policy import CallsPolicy
from envs.rollout.runner import run_rollouts
from schemas.chain import EpisodeChain
from schemas.envelope import Event
from schemas.events import OutcomeObserved
from schemas.tasks import Task


def archived(tasks: Sequence[Task], outcomes: Sequence[str | None]) -> list[Event]:
    """Every event of a gold rollout per task, then `outcome.observed` of the given kind (None: none yet)."""
    gold = CallsPolicy("gold", {t.task_id: t.gold_solution for t in tasks})
    events: list[Event] = []
    for task, record, kind in zip(tasks, run_rollouts(tasks, gold), outcomes, strict=True):
        events += record.events
        if kind is None:
            continue
        last = record.events[-1]
        chain = EpisodeChain(
            last.episodeid,
            tenant=last.tenant,
            source="loopline://bridge/outcomes",
            next_seq=last.seq + 1,
            prevhash=last.hash,
        )
        item = task.work_item.item_id
        events.append(
            chain.append(
                OutcomeObserved(kind=kind, item_id=item, observed_at=datetime.now(UTC)), subject=item
            )
        )
    return events
