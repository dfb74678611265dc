"""Rollouts are recorded in the production event schema and do not depend on the worker count."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import envs.toy as toy
from engine import EpisodeView, Message, PolicyReply
from envs.rollout import (
    NOOP,
    CallsPolicy,
    JsonlEventSink,
    MemoryEventSink,
    PlanPolicy,
    run_rollouts,
    summarize,
)
from schemas.chain import verify_chain
from schemas.codec import from_json
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    Escalated,
    PolicyRef,
    SamplingParams,
    ToolFailed,
    VerifierScored,
)
from schemas.tasks import Task
from tests.envs.helpers import call

REFERENCE = PlanPolicy("reference", toy.reference_plan)


def test_each_episode_is_a_verified_hash_chain_from_started_to_scored(toy_tasks: list[Task]) -> None:
    sink = MemoryEventSink()
    records = run_rollouts(toy_tasks[:3], REFERENCE, sink=sink)
    for record in records:
        events = [e for e in sink.events if e.episodeid == record.episode_id]
        assert verify_chain(events) is None
        assert list(events) == list(record.events)
        started, ended, scored = events[0].data, events[-2].data, events[-1].data
        assert isinstance(started, EpisodeStarted) and started.task_id == record.task_id
        assert started.world_snapshot is not None and started.policy.route == "scripted"
        assert isinstance(ended, EpisodeEnded) and ended.world_hash == record.world_hash
        assert isinstance(scored, VerifierScored) and scored.verdict == record.verdict
    assert [e.type.split(".")[1] for e in records[0].events][:4] == ["episode", "model", "tool", "tool"]


def test_escalation_and_tool_failures_become_their_own_events(escalate_task: Task) -> None:
    tid = escalate_task.work_item.item_id
    policy = CallsPolicy(
        "scripted",
        {escalate_task.task_id: [call("get_ticket", ticket_id="nope"), *escalate_task.gold_solution]},
    )
    (record,) = run_rollouts([escalate_task], policy)
    kinds = [type(e.data) for e in record.events]
    assert ToolFailed in kinds and Escalated in kinds
    escalated = next(e.data for e in record.events if isinstance(e.data, Escalated))
    assert escalated.reason.startswith("refund") and escalated.trigger == "policy"
    assert record.status == "escalated" and record.verdict.passed
    assert tid in record.events[0].data.model_dump_json()


class Crashing:
    ref = PolicyRef(model="crashing", route="scripted")
    sampling = SamplingParams()

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        raise RuntimeError("model server down")


def test_a_crashing_policy_is_recorded_as_a_failed_episode(refund_task: Task) -> None:
    (record,) = run_rollouts([refund_task], Crashing())
    assert record.status == "failed" and record.error == "RuntimeError: model server down"
    assert record.verdict.score == 0.0
    assert verify_chain(record.events) is None


def test_results_do_not_depend_on_the_number_of_workers(toy_tasks: list[Task], tmp_path: Path) -> None:
    one = run_rollouts(toy_tasks, REFERENCE, workers=1)
    with JsonlEventSink(tmp_path / "events.jsonl") as sink:
        two = run_rollouts(toy_tasks, REFERENCE, workers=2, sink=sink)

    def key(records: list[Any]) -> list[Any]:
        return [(r.task_id, r.calls, r.verdict, r.world_hash, r.status) for r in records]

    assert key(one) == key(two)
    lines = (tmp_path / "events.jsonl").read_bytes().splitlines()
    decoded = [from_json(line) for line in lines]
    assert len(decoded) == sum(len(r.events) for r in two)
    starts = [e.data.task_id for e in decoded if isinstance(e.data, EpisodeStarted)]
    assert starts == [t.task_id for t in toy_tasks]  # written in task order


def test_pass_rates_per_category(toy_tasks: list[Task]) -> None:
    records = run_rollouts(toy_tasks, REFERENCE) + run_rollouts(toy_tasks, NOOP)
    stats = {s.category: s for s in summarize(records, "kind")}
    assert set(stats) == {"refund", "escalate", "all"}
    assert stats["all"].episodes == 2 * len(toy_tasks)
    assert stats["all"].pass_rate == 0.5 and stats["refund"].pass_rate == 0.5
