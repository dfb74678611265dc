"""ATIF trajectories from any stack, mapped onto our tasks and re-scored by our verifiers.

A trajectory maps onto a task by, in order: the task id Loopline's own export records
(`extra.loopline.task_id`), the work item read back from the first user step (the runtime's
rendering), or a task whose work item id the first user step names. Its tool calls, in step order,
are then replayed through the episode engine in a fresh sim world of that task, and the agent's
last message closes the episode; the task's verifier scores the result. So a trajectory is judged
by what its calls do to the world, exactly as a rollout is, whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.chat import read_work_item_message
from engine import Finish, PlanPolicy, Turn
from envs.env import DEFAULT_MAX_STEPS
from envs.rollout.episode import EpisodeRecord, run_episode
from envs.verifiers.base import VERIFIERS
from loopline.interop.atif.schema import atif_problems
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall
from schemas.verdicts import Verdict


class AtifImportError(ValueError):
    """A document that is not a valid ATIF v1.7 trajectory, with every reason."""


@dataclass(frozen=True)
class Replay:
    """The plan that makes the trajectory's calls one a turn, then says its last words."""

    calls: tuple[ToolCall, ...]
    final_message: str

    def __call__(self, work_item: WorkItem, turns: tuple[Turn, ...]) -> ToolCall | Finish:
        return self.calls[len(turns)] if len(turns) < len(self.calls) else Finish(message=self.final_message)


@dataclass(frozen=True)
class Imported:
    """One trajectory, matched and re-scored (or why not)."""

    trajectory_id: str
    task_id: str | None
    """The task it maps onto; None when none matches."""
    unmatched: str | None
    """Why no task matched."""
    verdict: Verdict | None
    """Our verifier's verdict on the replayed calls."""
    recorded: Verdict | None
    """The verdict the exporting stack recorded, when it is Loopline (`extra.loopline.verdict`)."""
    record: EpisodeRecord | None
    """The replayed episode: its events are what the engine records for these calls."""


def trajectory_calls(doc: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """Every agent step's tool calls, in order."""
    return tuple(
        ToolCall(call_id=c["tool_call_id"], name=c["function_name"], arguments=c["arguments"])
        for step in doc["steps"]
        if step["source"] == "agent"
        for c in step.get("tool_calls") or ()
    )


def _final_message(doc: Mapping[str, Any]) -> str:
    agent = [s for s in doc["steps"] if s["source"] == "agent" and not s.get("tool_calls")]
    text = agent[-1]["message"] if agent else ""
    return text if isinstance(text, str) else " ".join(str(p.get("text", "")) for p in text)


def match_task(doc: Mapping[str, Any], tasks: Sequence[Task]) -> Task | None:
    """The task the trajectory works, by recorded task id, work item, or work item id."""
    by_id = {t.task_id: t for t in tasks}
    recorded = ((doc.get("extra") or {}).get("loopline") or {}).get("task_id")
    if isinstance(recorded, str) and recorded in by_id:
        return by_id[recorded]
    users = [s for s in doc["steps"] if s["source"] == "user" and isinstance(s.get("message"), str)]
    if not users:
        return None
    item = read_work_item_message({"role": "user", "content": users[0]["message"]})
    for task in tasks:
        if item is not None and (task.work_item.domain, task.work_item.item_id) == (
            item.domain,
            item.item_id,
        ):
            return task
    return next((t for t in tasks if t.work_item.item_id in users[0]["message"]), None)


def import_trajectory(doc: Any, tasks: Sequence[Task]) -> Imported:
    """Validate `doc`, map it onto one of `tasks` and re-score it; raises `AtifImportError` for a
    document that is not ATIF v1.7."""
    problems = atif_problems(doc)
    if problems:
        raise AtifImportError("; ".join(problems[:5]))
    loopline = (doc.get("extra") or {}).get("loopline") or {}
    recorded = Verdict.model_validate(loopline["verdict"]) if loopline.get("verdict") else None
    name = str(doc.get("trajectory_id") or doc.get("session_id") or "trajectory")
    task = match_task(doc, tasks)
    if task is None:
        return Imported(name, None, "no task's work item matches the trajectory", None, recorded, None)
    calls = trajectory_calls(doc)
    policy = PlanPolicy(f"atif:{doc['agent']['name']}", Replay(calls, _final_message(doc)))
    record = run_episode(
        task,
        policy,
        verifier=VERIFIERS.get(task.verifier.verifier),
        max_steps=max(DEFAULT_MAX_STEPS, len(calls)),
    )
    return Imported(name, task.task_id, None, record.verdict, recorded, record)
