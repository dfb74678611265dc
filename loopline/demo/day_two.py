"""The improvement stage's second production day, through production.

Every case of the day is a work item of a task (a fresh instance of a promoted case, or a fresh base
case). The day runs them through the same path as the first day:

- the live system is a second rcm sandbox (no faults); before each work item its world is set to
  that task's world through the sandbox's admin routes, so the cases are worked one at a time;
- the bridge API runs each work item; its release router (following the cycle's release store)
  sends the canary's share of work items (sticky, keyed by the canary secret) to the adapter and the
  rest to the champion, both reached over HTTP through `loopline serve-policy`;
- every event goes through the bridge's outbox to Kafka and the streams worker's archive; when an
  episode ends the bridge's scorer judges it with its task's verifier on the world the sandbox holds
  then (`verifier.scored` on the episode's stream);
- the billing system's later outcome for each case comes through the outcome webhook: `approved`
  when the world holds what the task's outcome spec requires, `rejected` otherwise. The demo
  simulates that billing system from the task's outcome spec, so the outcome agrees with the
  verifier's outcome checks by construction; the verifier's process and content checks are its own;
- `loopline adapters observe` reads the archive (each episode once, by the arm the router gave it,
  only with a verdict and an outcome) and the cycle's workflow runs the sequential test on what it
  counted.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from adapters.sandbox import create_sandbox_app
from adapters.serving import serve_in_thread
from bridge.store import SqlEventArchive
from engine import EpisodeResult
from envs.domain import DOMAINS
from envs.rcm.faults import NotInTheSandbox, split_faults
from envs.rollout.episode import trajectory
from envs.verifiers.base import VERIFIERS
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.kafka.settings import KafkaSettings
from loopline.release.observe import served_episodes
from loopline.streams.event_keys import checkpoint_key_file, role_file
from schemas import Task, WorkItem
from schemas.events import VerifierScored
from schemas.verdicts import Verdict

DOMAIN = "rcm"
AGENT = {"Authorization": "Bearer dev-agent-token"}
INTEGRATION = {"Authorization": "Bearer dev-integration-token"}
SOURCE = "loopline://bridge/rcm"
"""The second day's bridge: its own outbox, the bridge's event source and signing key."""
LIVE_TIMEOUT_S, STALL_S = 1.0, 2.0
"""The bridge's timeout against the live system, and how long a scripted stall lasts (past it)."""
OBSERVE_EVERY = 8
"""Episodes between two runs of `loopline adapters observe`."""


@dataclass(frozen=True)
class Production:
    """The run's production plumbing the day reuses: the broker, the event topic and its archive,
    the producers' keys, and a way to start the streams worker for the day."""

    kafka: KafkaSettings
    topic: str
    db_url: str
    keys: Path
    checkpoints: Path
    checkpoint_topic: str
    streams_worker: Callable[[], AbstractContextManager[None]]


@dataclass(frozen=True)
class DayEpisode:
    """One case of the day as production recorded it."""

    task: Task
    episode_id: str
    route: str
    """The arm the bridge's router gave it (`champion` or `canary`), from the archive."""
    adapter_id: str | None
    """The adapter that served it (None: the base model)."""
    passed: bool
    """The verdicts recorded on its stream."""


def billing_outcome(verdict: Verdict) -> str:
    """The simulated billing system's later answer: approved when every outcome check held."""
    outcome = [c for c in verdict.checks if c.kind == "outcome"]
    return "approved" if outcome and all(c.passed for c in outcome) else "rejected"


class DayScorer:
    """The bridge's scorer for the day: the work item's task, its verifier, the sandbox's world."""

    def __init__(self, tasks: list[Task], world: Callable[[], dict[str, Any]]) -> None:
        self.by_item = {t.work_item.item_id: t for t in tasks}
        self.world = world
        self.verdicts: dict[str, Verdict] = {}
        self.rules = DOMAINS.get(DOMAIN).tool.rules

    def __call__(self, item: WorkItem, result: EpisodeResult) -> VerifierScored | None:
        task = self.by_item.get(item.item_id)
        if task is None:
            return None
        played = trajectory(task, 0, result, self.world(), self.rules)
        verdict = VERIFIERS.get(task.verifier.verifier).score(task, played)
        self.verdicts[result.episode_id] = verdict
        return VerifierScored(task_id=task.task_id, verdict=verdict)


@dataclass(frozen=True)
class Day:
    """What the day served, and the cases it could not serve (task id, why)."""

    episodes: list[DayEpisode]
    left_off: list[tuple[str, str]]


@dataclass(frozen=True)
class LiveCase:
    """A case as the sandbox takes it: its world and the faults that reproduce its plan."""

    task: Task
    world: str
    faults: dict[str, Any]


def live_cases(tasks: list[Task]) -> tuple[list[LiveCase], list[tuple[str, str]]]:
    """The cases the sandbox can hold (one per work item) and those it cannot, with why."""
    cases, left_off = [], []
    world_model = DOMAINS.get(DOMAIN).tool.world_model
    for task in one_item_each(tasks):
        try:
            body, faults = split_faults(task.initial_world, stall_s=STALL_S)
        except NotInTheSandbox as exc:
            left_off.append((task.task_id, str(exc)))
            continue
        world = world_model.model_validate(body).model_dump_json()
        cases.append(LiveCase(task, world, faults.model_dump(mode="json")))
    return cases, left_off


def one_item_each(tasks: list[Task]) -> list[Task]:
    """The tasks whose work items are distinct (a repeated work item id is one case, served once)."""
    seen: set[str] = set()
    out = []
    for task in tasks:
        if task.work_item.item_id not in seen:
            seen.add(task.work_item.item_id)
            out.append(task)
    return out


@contextmanager
def day_sandbox(workdir: Path, first: LiveCase) -> Iterator[tuple[str, httpx.Client]]:
    """A second rcm sandbox and an admin client for it."""
    described = DOMAINS.get(DOMAIN)
    sandbox = described.load_sandbox()
    if sandbox is None:
        raise ValueError(f"domain {DOMAIN!r} has no sandbox")
    config = sandbox.config_type.model_validate(
        {"db_url": f"sqlite:///{workdir / 'sandbox.db'}", "reset": True}
    )
    world = described.tool.world_model.model_validate_json(first.world)
    with serve_in_thread(create_sandbox_app(sandbox, config, world), name="day-two-sandbox") as url:
        headers = {"Authorization": f"Bearer {config.admin_token}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as admin:
            yield url, admin


def serve_day(
    tasks: list[Task],
    *,
    production: Production,
    workdir: Path,
    policy_url: str,
    serving_key: str,
    base_name: str,
    release_db_url: str,
    release_state: Path,
    canary_secret: str,
    canary_id: str,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Day:
    """Work every case of `tasks` through the bridge, one at a time (see the module docstring)."""
    cases, left_off = live_cases(tasks)
    if not cases:
        return Day([], left_off)
    workdir.mkdir(parents=True, exist_ok=True)
    world_model = DOMAINS.get(DOMAIN).tool.world_model
    with day_sandbox(workdir, cases[0]) as (live_url, admin), production.streams_worker():

        def live_world() -> dict[str, Any]:
            held = admin.get("/admin/world")
            held.raise_for_status()
            snapshot: dict[str, Any] = world_model.model_validate(held.json()).model_dump(mode="json")
            return snapshot

        scorer = DayScorer([c.task for c in cases], live_world)
        settings = BridgeSettings(
            state_dir=workdir / "bridge",
            live_url=live_url,
            db_url=production.db_url,
            events_topic=production.topic,
            kafka=production.kafka,
            environment="dev",
            max_steps=40,
            live_timeout_s=LIVE_TIMEOUT_S,
            domain=DOMAIN,
            event_keys_file=role_file("bridge", production.keys),
            checkpoint_key_file=checkpoint_key_file("bridge", production.keys),
            checkpoint_dir=production.checkpoints,
            checkpoint_topic=production.checkpoint_topic,
            policy="openai",
            policy_base_url=f"{policy_url}/v1",
            policy_model=base_name,
            policy_api_key=serving_key,
            release_db_url=release_db_url,
            release_check_s=0.5,
            canary_secret=canary_secret,
        )
        bridge = build_bridge(settings, scorer=scorer)
        archived_before = SqlEventArchive(production.db_url).count(source=settings.source)
        try:
            _wait_for_canary(bridge, canary_id)
            with serve_in_thread(bridge.app(), name="day-two-bridge") as api:
                ran = _work(api, admin, cases, scorer, production, release_db_url, release_state, progress)
                _wait_for_archive(bridge, production.db_url, archived_before)
        finally:
            bridge.close()
        _observe(production.db_url, release_db_url, release_state)
    return Day(_as_recorded(production.db_url, ran), left_off)


def _wait_for_canary(bridge: Any, canary_id: str, timeout_s: float = 30.0) -> None:
    """Until the bridge's router serves the canary (its fingerprint checked at the policy server)."""
    router = bridge.services.runner.router
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        router.refresh(force=True)
        if router.key is not None and router.key[1] == canary_id:
            return
        time.sleep(0.5)
    raise RuntimeError(
        f"the bridge's release router did not route to canary {canary_id} within {timeout_s:.0f} s"
    )


def _work(
    api: str,
    admin: httpx.Client,
    cases: list[LiveCase],
    scorer: DayScorer,
    production: Production,
    release_db_url: str,
    release_state: Path,
    progress: Callable[[int, int], None],
) -> dict[str, Task]:
    ran: dict[str, Task] = {}
    with (
        httpx.Client(base_url=api, headers=AGENT, timeout=120) as agent,
        httpx.Client(base_url=api, headers=INTEGRATION, timeout=30) as billing,
    ):
        for n, case in enumerate(cases, start=1):
            task = case.task
            loaded = admin.put(
                "/admin/world", content=case.world, headers={"content-type": "application/json"}
            )
            loaded.raise_for_status()
            admin.put("/admin/faults", json=case.faults).raise_for_status()
            run = agent.post("/v1/episodes", json={"work_item": task.work_item.model_dump(mode="json")})
            run.raise_for_status()
            episode_id = run.json()["episode_id"]
            ran[episode_id] = task
            verdict = scorer.verdicts.get(episode_id)
            if verdict is not None:
                outcome = {
                    "episode_id": episode_id,
                    "kind": billing_outcome(verdict),
                    "item_id": task.work_item.item_id,
                    "observed_at": datetime.now(UTC).isoformat(),
                }
                billing.post("/v1/outcomes", json=outcome).raise_for_status()
            if n % OBSERVE_EVERY == 0:
                _observe(production.db_url, release_db_url, release_state)
            progress(n, len(cases))
    return ran


def _wait_for_archive(bridge: Any, db_url: str, before: int, timeout_s: float = 120.0) -> None:
    """Until the archive holds every event this bridge's outbox took (beyond the `before` it held)."""
    relay = bridge.capture.relay
    if relay is not None:
        relay.flush(timeout_s)
    archive = SqlEventArchive(db_url)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if archive.count(source=SOURCE) >= before + bridge.capture.outbox.last_pos():
            return
        time.sleep(0.5)
    raise RuntimeError(f"the archive did not receive the second day's events within {timeout_s:.0f} s")


def _observe(db_url: str, release_db_url: str, state: Path) -> str:
    """`loopline adapters observe` on the archive, as an operator's cron would run it; the cycle's
    workflow makes the decision (`--no-decide`)."""
    command = [sys.executable, "-m", "loopline.cli", "adapters", "observe", "--no-decide", "--domain", DOMAIN]
    command += ["--archive-url", db_url, "--db-url", release_db_url, "--state", str(state)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"`loopline adapters observe` failed: {done.stderr.strip() or done.stdout.strip()}"
        )
    return done.stdout


def _as_recorded(db_url: str, ran: dict[str, Task]) -> list[DayEpisode]:
    """Each scored episode of the day as the archive holds it: its arm and its verdicts."""
    episodes = served_episodes(SqlEventArchive(db_url).iter_streams())
    out = []
    for episode_id, task in ran.items():
        recorded = episodes.get(episode_id)
        if recorded is None or not recorded.verdicts:
            continue
        out.append(
            DayEpisode(
                task=task,
                episode_id=episode_id,
                route=recorded.route or "unknown",
                adapter_id=recorded.adapter_id,
                passed=all(recorded.verdicts.values()),
            )
        )
    return out
