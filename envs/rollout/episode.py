"""One rollout: the engine with the domain's sim backend and an in-memory recorder, then the verifier.

A rollout is the episode production runs (`engine`), so its events are the same types, envelope
and hash chain the bridge writes for live episodes, read, replayed and turned into training data by
the same code. Evaluation's settings: the budget counts tool calls (`max_steps`), and the engine
offers no escalate tool of its own (a task offers exactly its tools).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import EpisodeConfig, EpisodeResult, EpisodeRules, EpisodeSession, MemoryRecorder, Policy
from engine import run_episode as run_engine
from envs.contract import EndReason, Trajectory
from envs.domain import DOMAINS, Domain
from envs.env import DEFAULT_MAX_STEPS, ToolEnv
from envs.verifiers.base import Verifier
from schemas.base import Contract
from schemas.envelope import Event
from schemas.events import EpisodeStatus, VerifierScored
from schemas.ids import new_id
from schemas.tasks import Task, content_hash
from schemas.tools import ToolCall, ToolOutcome
from schemas.verdicts import Verdict

SOURCE = "loopline://envs/rollout"


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
    status: EpisodeStatus
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


@dataclass(frozen=True)
class Played:
    """An episode played in the sim: the trajectory a verifier scores and the engine's record."""

    trajectory: Trajectory
    status: EpisodeStatus
    recorder: MemoryRecorder
    error: str | None = None


class _CallIds:
    """`call-1`, `call-2`, ... for calls a policy sent without an id: a rollout is a function of the
    task, the policy and the seed, ids included."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"call-{self.count}"


def evaluation_config(max_steps: int = DEFAULT_MAX_STEPS) -> EpisodeConfig:
    """The engine settings of evaluation: `max_steps` tool calls, no built-in escalate tool."""
    return EpisodeConfig(max_steps=max_steps + 1, max_tool_calls=max_steps, builtin_escalate=False)


def play(
    task: Task,
    policy: Policy,
    *,
    domain: Domain | None = None,
    rules: EpisodeRules | None = None,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    tenant: str = "sim",
) -> Played:
    """Run `policy` on `task` through the engine over a fresh sim world; a raising policy ends the
    episode `failed` (recorded) and is returned as `error`, not raised."""
    descriptor = DOMAINS.get(task.domain)
    env = ToolEnv(domain or descriptor, max_steps=max_steps)
    env.reset(task, seed=seed)
    recorder = MemoryRecorder(new_id(), tenant=tenant, source=SOURCE)
    rules = rules or descriptor.tool.rules
    session = EpisodeSession(
        task.work_item,
        toolbox=env.toolbox,
        recorder=recorder,
        rules=rules,
        config=evaluation_config(max_steps),
        id_factory=_CallIds(),
        task_id=task.task_id,
    )
    session.start(policy.ref, sampling=policy.sampling)
    error = None
    try:
        run_engine(policy, session)
    except Exception as exc:  # the engine closed the record; a bad rollout is data, not a crash
        error = f"{type(exc).__name__}: {exc}"
    result = session.result
    assert result is not None  # the engine ends every episode, a crash included
    return Played(trajectory(task, seed, result, env.world, rules), result.status, recorder, error)


def trajectory(
    task: Task, seed: int, result: EpisodeResult, final_world: dict[str, Any], rules: EpisodeRules
) -> Trajectory:
    """What a verifier scores of an episode the engine ran: its turns, how it ended and the world
    it left (the sim's, or what a live system holds after a production episode)."""
    # Simulated calls take no business time; the wall-clock latency would make two identical runs
    # differ, so the trajectory holds 0.
    turns = tuple(
        t.model_copy(update={"result": t.result.model_copy(update={"latency_ms": 0.0})}) for t in result.turns
    )
    last = turns[-1] if turns else None
    by_tool = (
        last is not None
        and last.result.outcome is ToolOutcome.OK
        and (
            last.call.name in rules.terminal_tools
            or (
                last.call.name == rules.escalate_tool
                and rules.escalation_ends(task.work_item, last.call.arguments)
            )
        )
    )
    end: EndReason | None = None
    if result.status == "budget_exhausted":
        end = "budget_exhausted"
    elif by_tool and result.status != "failed":
        end = "terminal_tool"
    elif result.status == "completed":
        end = "agent_finished"
    final = result.final_message if end == "agent_finished" else None
    return Trajectory(
        task_id=task.task_id,
        seed=seed,
        turns=turns,
        final_world=final_world,
        end_reason=end,
        final_message=final,
    )


def run_episode(
    task: Task,
    policy: Policy,
    *,
    verifier: Verifier,
    domain: Domain | None = None,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    tenant: str = "sim",
) -> EpisodeRecord:
    """Play `task` and score it: the engine's events, then `verifier.scored`."""
    played = play(task, policy, domain=domain, seed=seed, max_steps=max_steps, tenant=tenant)
    verdict = verifier.score(task, played.trajectory)
    played.recorder.scored(VerifierScored(task_id=task.task_id, verdict=verdict))
    return EpisodeRecord(
        task_id=task.task_id,
        tags=task.tags,
        episode_id=played.recorder.episode_id,
        policy=policy.ref.model,
        status=played.status,
        calls=played.trajectory.calls,
        verdict=verdict,
        world_hash=content_hash(played.trajectory.final_world),
        error=played.error,
        events=tuple(played.recorder.events),
    )
