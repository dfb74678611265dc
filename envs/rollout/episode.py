"""One rollout: run a policy on a task in a fresh environment and record it as production events.

The events are the same types, envelope and hash chain the bridge writes for live episodes
(`schemas.events`, `schemas.chain.EpisodeChain`), so a rollout and a production episode are read,
replayed and turned into training data by the same code.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal

from envs.contract import Action, EndReason, Finish, Trajectory
from envs.domain import Domain
from envs.env import DEFAULT_MAX_STEPS, ToolEnv
from envs.rollout.policy import History, Policy
from envs.verifiers.base import Verifier
from schemas.base import Contract
from schemas.chain import EpisodeChain
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    Escalated,
    ModelResponded,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
    VerifierScored,
)
from schemas.ids import new_id
from schemas.registry import EventData
from schemas.tasks import Task, content_hash
from schemas.tools import ToolCall, ToolOutcome, ToolResult
from schemas.verdicts import Verdict

Status = Literal["completed", "escalated", "budget_exhausted", "failed", "aborted"]
SOURCE = "loopline://envs/rollout"
DEFAULT_MAX_SECONDS = 300.0


class EpisodeRecord(Contract):
    """The result of one rollout: its verdict and every event it produced."""

    task_id: str
    """The task."""
    tags: tuple[str, ...] = ()
    """The task's tags (categories)."""
    episode_id: str
    """Stream id of the events."""
    policy: str
    """Policy name."""
    status: Status
    """How the episode ended, as in `episode.ended`."""
    calls: tuple[ToolCall, ...] = ()
    """Every call, in order (kept for determinism checks and quick reports)."""
    verdict: Verdict
    """The verifier's verdict."""
    world_hash: str
    """Content hash of the final world."""
    error: str | None = None
    """The policy's exception, when it raised (a bad rollout is data, not a crash)."""
    events: tuple[Event, ...] = ()
    """Every event, in `seq` order."""


def run_episode(
    task: Task,
    policy: Policy,
    *,
    domain: Domain,
    verifier: Verifier,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    tenant: str = "sim",
    route: Literal["champion", "canary", "scripted", "human"] = "scripted",
) -> EpisodeRecord:
    """Run `policy` on `task` until it stops, ends the episode with a terminal tool, or runs out."""
    start = time.perf_counter()
    episode_id = new_id()
    chain = EpisodeChain(episode_id, tenant=tenant, source=SOURCE)
    events: list[Event] = []

    def emit(data: EventData, subject: str | None = None) -> None:
        events.append(chain.append(data, subject=subject or task.work_item.item_id))

    env = ToolEnv(domain, max_steps=max_steps)
    observation = env.reset(task, seed=seed)
    tools = observation.tools
    emit(
        EpisodeStarted(
            work_item=task.work_item,
            policy=PolicyRef(model=policy.name, route=route),
            tools=task.tools,
            tools_hash=env.toolbox.tools_hash(),
            system_prompt_hash=content_hash(str(getattr(policy, "system_prompt", ""))),
            world_snapshot=env.world,
            task_id=task.task_id,
            max_steps=max_steps,
            max_seconds=DEFAULT_MAX_SECONDS,
        )
    )
    error: str | None = None
    turn = 0
    while not env.done:
        history = History(task_id=task.task_id, work_item=task.work_item, turns=env.turns)
        try:
            action: Action = policy.act(observation, tools, history)
        except Exception as exc:  # the policy's failure is recorded, the run goes on
            error = f"{type(exc).__name__}: {exc}"
            emit(ModelResponded(turn=turn, invalid_reason=error, finish_reason="error"))
            break
        if isinstance(action, Finish):
            emit(ModelResponded(turn=turn, content=action.message, finish_reason="stop"))
            observation, _ = env.step(action)
            break
        emit(ModelResponded(turn=turn, tool_calls=(action,), finish_reason="tool_calls"))
        spec = env.toolbox.spec(action.name)
        emit(ToolCalled(call=action, side_effect=spec.side_effect if spec else None), action.name)
        observation, _ = env.step(action)
        assert observation.result is not None  # a tool call always yields a result
        emit(_result_event(observation.result), action.name)
        if action.name in domain.escalation_tools and observation.result.outcome is ToolOutcome.OK:
            emit(_escalated(action.arguments))
        turn += 1
    trajectory = env.trajectory()
    status = _status(env.end_reason, trajectory, domain, error)
    world_hash = content_hash(trajectory.final_world)
    emit(
        EpisodeEnded(
            status=status,
            steps=sum(isinstance(e.data, ModelResponded) for e in events),
            tool_calls=len(trajectory.turns),
            duration_ms=(time.perf_counter() - start) * 1000,
            final_message=trajectory.final_message,
            world_hash=world_hash,
        )
    )
    verdict = verifier.score(task, trajectory)
    emit(VerifierScored(task_id=task.task_id, verdict=verdict))
    return EpisodeRecord(
        task_id=task.task_id,
        tags=task.tags,
        episode_id=episode_id,
        policy=policy.name,
        status=status,
        calls=trajectory.calls,
        verdict=verdict,
        world_hash=world_hash,
        error=error,
        events=tuple(events),
    )


def _result_event(result: ToolResult) -> EventData:
    if result.outcome is ToolOutcome.OK:
        return ToolReturned(
            call_id=result.call_id, name=result.name, result=result.result or {}, latency_ms=result.latency_ms
        )
    assert result.error is not None  # failed and unknown results always carry their error
    outcome = ToolOutcome.UNKNOWN if result.outcome is ToolOutcome.UNKNOWN else ToolOutcome.FAILED
    return ToolFailed(
        call_id=result.call_id,
        name=result.name,
        error=result.error,
        outcome=outcome,
        latency_ms=result.latency_ms,
    )


def _escalated(arguments: Mapping[str, Any]) -> Escalated:
    # Escalation tools name their fields reason / queue / recommended_action (adapters' convention).
    def text(key: str) -> str | None:
        value = arguments.get(key)
        return None if value is None else str(value)

    return Escalated(
        reason=text("reason") or "escalated by the policy",
        trigger="policy",
        recommendation=text("recommended_action") or text("recommendation"),
        queue=text("queue"),
    )


def _status(end: EndReason | None, trajectory: Trajectory, domain: Domain, error: str | None) -> Status:
    if error is not None:
        return "failed"
    if end == "budget_exhausted":
        return "budget_exhausted"
    escalated = any(
        t.call.name in domain.escalation_tools and t.result.outcome is ToolOutcome.OK
        for t in trajectory.turns
    )
    return "escalated" if escalated else "completed"
