"""One engine: evaluation (the sim) and production (the sandbox behind the live backend) record the
same episode for the same task and the same scripted reference policy.

Each side is the engine as its callers compose it: evaluation is `envs.rollout.play` (sim backend,
in-memory recorder); production is `bridge.runtime.EpisodeRunner` with the domain's `LiveBackend`
in front of its sandbox, served on loopback with the task's world loaded. Both record through the
`Recorder` port into a `MemoryRecorder`, so no PHI redaction stands between the two records.

Normalised, and why: event ids, times, hashes and episode ids (fresh per run); call ids (renamed
by order of appearance; the production runner makes its own ids); latencies and durations (wall
clock); the HTTP status of a domain refusal (the sim has none; the conformance suites normalise it
the same way). The world snapshot at the start and the world hash at the end are compared as they
are: the production backend reads the sandbox's world through its admin API, which is the sim's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from adapters import Toolbox
from bridge.runtime import EpisodeRunner
from engine import MemoryRecorder
from envs.domain import DOMAINS
from envs.rcm.faults import FAULTS_KEY
from envs.rollout import evaluation_config, play, reference_policy
from schemas import Event, Task
from schemas.events import Escalated, ToolCalled

pytestmark = pytest.mark.integration
ADMIN_TOKEN = "test-one-engine-admin-token"
PER_DOMAIN = 6


def _tasks(domain: str) -> list[Task]:
    """Six tasks of the base and edge sets: hand-offs to a human, terminal decisions (where the
    domain has them) and the rest, each spread over the set (a seed-fixed sample)."""
    if domain == "rcm":
        from envs.rcm import generate_base, generate_edge

        base, edge = generate_base(seed=0, per_carc=1), generate_edge(seed=0, per_kind=1)
    else:
        from envs.credit import tasks as credit

        base, edge = credit.generate_base(seed=0, per_recipe=1), credit.generate_edge(seed=0, per_kind=1)
    # Fault plans are the sim's own; the sandbox injects faults through its admin API instead.
    plain = [t for t in [*base, *edge] if FAULTS_KEY not in t.initial_world]
    rules = DOMAINS.get(domain).tool.rules

    def last(task: Task) -> str:
        return task.gold_solution[-1].name if task.gold_solution else ""

    groups = [
        [t for t in plain if last(t) == rules.escalate_tool],
        [t for t in plain if last(t) in rules.terminal_tools],
        [t for t in plain if last(t) != rules.escalate_tool and last(t) not in rules.terminal_tools],
    ]
    picked = [t for group in groups for t in group[:: max(1, len(group) // 2)][:2]]
    rest = [t for t in plain[::7] if t not in picked]
    return [*picked, *rest][:PER_DOMAIN]


@dataclass
class Sandbox:
    """A domain's sandbox on loopback and the live backend in front of it."""

    url: str
    admin: Any
    live: Callable[[str, float], Any]


def _serve(domain: str) -> Iterator[Sandbox]:
    if domain == "rcm":
        from adapters.rcm.sandbox import SandboxAdmin, SandboxConfig, serve_in_thread
    else:
        from adapters.credit.sandbox import SandboxAdmin, SandboxConfig, serve_in_thread  # type: ignore[assignment]
    with serve_in_thread(SandboxConfig(admin_token=ADMIN_TOKEN)) as url:
        admin = SandboxAdmin(url, ADMIN_TOKEN)
        yield Sandbox(url, admin, DOMAINS.get(domain).tool.live)
        admin.close()


@pytest.fixture(scope="module", params=["rcm", "credit"])
def sandbox(request: pytest.FixtureRequest) -> Iterator[tuple[str, Sandbox]]:
    domain: str = request.param
    for served in _serve(domain):
        yield domain, served


class SandboxBackend:
    """The live backend, plus the sandbox's world as a snapshot (which a real live system lacks)."""

    def __init__(self, live: Any, admin: Any) -> None:
        self.live, self.admin = live, admin

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        result: BaseModel = self.live.invoke(tool, args)
        return result

    def snapshot(self) -> dict[str, Any]:
        state: dict[str, Any] = self.admin.world().snapshot()
        return state


def _production(task: Task, served: Sandbox) -> list[Event]:
    descriptor = DOMAINS.get(task.domain)
    world_type = served.admin.world_type
    served.admin.load(world_type.from_snapshot(dict(task.initial_world)))
    live = served.live(served.url, 10.0)
    specs = {spec.name: spec for spec in descriptor.tool.tools}
    toolbox = Toolbox([specs[name] for name in task.tools], SandboxBackend(live, served.admin))
    recorders: dict[str, MemoryRecorder] = {}

    def recorder(episode_id: str) -> MemoryRecorder:
        recorders[episode_id] = MemoryRecorder(episode_id)
        return recorders[episode_id]

    runner = EpisodeRunner(
        reference_policy(task.domain), toolbox, recorder, evaluation_config(), rules=descriptor.tool.rules
    )
    result = runner.run(task.work_item, task_id=task.task_id)
    live.close()
    return recorders[result.episode_id].events


def _evaluation(task: Task) -> list[Event]:
    return play(task, reference_policy(task.domain)).recorder.events


WALL_CLOCK = {"latency_ms", "duration_ms"}


def normalised(events: list[Event]) -> list[tuple[str, Any]]:
    """Each event's type and data, with the fields that differ between runs by nature replaced."""
    call_ids: dict[str, str] = {}

    def norm(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            out = {k: norm(v, k) for k, v in value.items() if k not in WALL_CLOCK}
            if out.get("kind") == "domain" and "status_code" in out:
                out["status_code"] = None
            return out
        if isinstance(value, list):
            return [norm(v) for v in value]
        if key == "call_id" and isinstance(value, str):
            return call_ids.setdefault(value, f"call-{len(call_ids) + 1}")
        return value

    return [(e.type, norm(e.data.model_dump(mode="json"))) for e in events]


def test_evaluation_and_production_record_the_same_episodes(sandbox: tuple[str, Sandbox]) -> None:
    domain, served = sandbox
    endings: set[str] = set()
    for task in _tasks(domain):
        evaluated, produced = _evaluation(task), _production(task, served)
        assert [e.type for e in produced] == [e.type for e in evaluated], task.task_id
        assert normalised(produced) == normalised(evaluated), task.task_id
        rules = DOMAINS.get(domain).tool.rules
        for event in evaluated:  # the domain's rules read the hand-off: reason and recommendation
            if isinstance(event.data, Escalated) and event.data.trigger == "policy":
                asked = next(
                    e.data.call
                    for e in evaluated
                    if isinstance(e.data, ToolCalled) and e.data.call.name == rules.escalate_tool
                )
                fields = rules.escalation(asked.arguments)
                assert (event.data.reason, event.data.recommendation) == (
                    fields.reason,
                    fields.recommendation,
                )
        ended = evaluated[-1].data.model_dump()
        endings.add(ended["status"])
        assert ended["world_hash"] is not None
    # the sample holds a hand-off to a human and a terminal decision or closing message
    assert "escalated" in endings and "completed" in endings, endings
