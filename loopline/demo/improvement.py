"""The demo's improvement stage: a second production day, before and after an improvement cycle.

1. The champion: a small structured policy the demo trains once and caches under the state
   folder (`loopline train bootstrap` trains the full reference policy in about 20 minutes; the
   demo's stand-in learns three CARC families in under a minute). Two families it never learned
   stand in for the tasks promotion adds.
2. `ImprovementCycleWorkflow` runs on the stack's Temporal with a `cpu` and a `gpu` worker beside
   the demo: dataset (the new families, half replay), LoRA training, paired evaluation, the
   demo's gate, registration, the canary.
3. The second production day: fresh cases of the same mix (never trained on, not in the gate's
   suites), each served
   through `loopline serve-policy`'s app on a real socket, by the champion or, for the canary's
   share of work items (sticky by hash), by the adapter loaded at run time under its versioned
   name; each episode is scored by its task's verifier in the simulated environment and counted
   for its arm. The workflow runs the sequential test and decides on its own.
4. The report: the pass rate on the day's new cases before (champion) and after (the adapter),
   the canary's decision with its evidence, and the release event trail.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from adapters.serving import serve_in_thread
from bridge.runtime.canary import bucket
from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetRegistry
from loopline.card.evidence import REPO_CARD, card_evidence
from loopline.demo.charts import FamilyRates, Rate
from loopline.demo.served import ServedPolicy
from schemas.tasks import Task
from training.data.sources import task_family
from training.gate import GateRule, GateRules
from training.release.manager import ReleaseManager
from training.release.sequential import llr_path
from training.release.store import SqlReleaseStore
from training.serve.access import AccessKeys
from workflows.improvement.models import CycleInput, CycleResult, CycleSettings, Suite, TaskSource

BASE_FAMILIES = ("carc:1", "carc:18", "carc:B7")
"""What the demo's champion learned."""
NEW_FAMILIES = ("carc:45", "carc:97")
"""The families it never learned: the stand-in for newly promoted tasks."""
DEMO_RULES = GateRules(
    rules=[GateRule(suite="promoted", min_gain=40.0, gain_at="point"), GateRule(suite="base", max_loss=34.0)]
)
"""The demo's gate on its small suites: +40 points on the new families, at most one base task in three lost."""
BASE_NAME = "demo-champion"
MIN_GAIN_POINTS = 40.0
"""What the stage claims: the adapter passes at least 40 points more of the day's new cases."""

DEMO_KEYS = AccessKeys(serving=secrets.token_urlsafe(24), release=secrets.token_urlsafe(24))
"""This run's policy-server keys: the scoring clients hold the serving key, the canary's load the
release key."""
DEMO_CANARY_SECRET = secrets.token_bytes(32)
"""This run's canary bucket key (the bridge's `LOOPLINE_BRIDGE_CANARY_SECRET`)."""


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@dataclass
class ImprovementSummary:
    """What the stage showed."""

    adapter_id: str
    forced: bool = False
    """The cycle was forced through the gate on purpose (`--corrupt`)."""
    gate_passed: bool = False
    decision: str = ""
    reason: str = ""
    before: float = 0.0
    after: float = 0.0
    new_cases: int = 0
    day2_episodes: int = 0
    canary_episodes: int = 0
    trail: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """The adapter's stream in the release store: lineage, evaluation, canary and decision."""
    families: list[FamilyRates] = field(default_factory=list)
    """Every family of the second day, champion and adapter on the same cases."""
    day: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """(case id, family, served name, passed) for each second-day episode, as routed."""
    path: list[float] = field(default_factory=list)
    """The sequential test's log-likelihood ratio after each discordant pair."""
    seconds: float = 0.0

    def problems(self) -> list[str]:
        """Why the stage did not show what it claims (empty when it did): a good cycle is passed by
        the gate, served by the canary, gains on the new cases and is promoted; a forced bad one is
        rolled back."""
        if self.forced:
            if self.decision != "roll_back":
                return [f"the forced bad adapter was not rolled back (decision {self.decision or 'none'})"]
            return []
        out = []
        if not self.gate_passed:
            out.append(f"the gate stopped the cycle: {self.reason or 'no reason recorded'}")
        if self.canary_episodes == 0:
            out.append("the canary served no episode of the second day")
        gain = 100 * (self.after - self.before)
        if gain < MIN_GAIN_POINTS:
            out.append(
                f"the adapter gained {gain:+.0f} points on the day's new cases "
                f"({self.before:.0%} -> {self.after:.0%}); the stage claims at least +{MIN_GAIN_POINTS:.0f}"
            )
        if self.gate_passed and self.decision != "promote":
            out.append(f"the sequential test did not promote the adapter ({self.decision or 'no decision'})")
        return out


def day_two(seed: int = 0, per_carc: int = 10, skip: int = 2) -> list[Task]:
    """Fresh cases of the demo's mix (its base families and the new ones): the generator's cases
    after the first `skip` of each family, which the gate's suites hold, so no case of the day was
    trained on or judged by the gate."""
    wanted = set(BASE_FAMILIES) | set(NEW_FAMILIES)
    tasks = generate_base(seed, per_carc=per_carc)
    return [t for t in tasks if task_family(t) in wanted and int(t.task_id.rsplit("-", 1)[1]) >= skip]


def champion_model(state: Path, console: Console) -> Path:
    """The demo's champion, trained once (seconds on a free core) and reused from `state/models`."""
    from training.data import DatasetSpec, LoadedTaskSet, build_dataset
    from training.loop import LoopConfig
    from training.structured.bootstrap import fit_structured
    from training.structured.store import save_model

    tasks = [t for seed in (1, 2) for t in generate_base(seed, per_carc=2) if task_family(t) in BASE_FAMILIES]
    key = hashlib.sha256("".join(t.compute_hash() for t in tasks).encode()).hexdigest()[:12]
    folder = state / "models" / f"demo-champion-{key}"
    if (folder / "config.json").is_file():
        return folder
    with console.status("training the demo's champion (once; cached in the state folder)…"):
        from envs.tasksets import manifest_hash

        loaded = LoadedTaskSet(
            label="demo-base",
            name="demo-base",
            version=None,
            seed=None,
            set_hash=manifest_hash([t.compute_hash() for t in tasks]),
            tasks=tuple(tasks),
        )
        rows = build_dataset(DatasetSpec(name="demo-champion", primary=(loaded,))).rows
        fit = fit_structured(
            rows, d_model=32, layers=1, heads=2, loop=LoopConfig(epochs=100, batch_size=8, lr=5e-3)
        )
        save_model(folder, fit.model, fit.vocab, {"name": BASE_NAME})
    return folder


def publish_sets(root: Path) -> None:
    """The task sets the cycle reads: the new families (training and evaluation) and the base."""
    registry = TaskSetRegistry(root)
    if registry.names():
        return
    for seed, per_carc, suffix in ((1, 5, "train"), (0, 2, "eval")):
        tasks = generate_base(seed, per_carc=per_carc)
        registry.publish(f"demo-new-{suffix}", [t for t in tasks if task_family(t) in NEW_FAMILIES])
        registry.publish(f"demo-base-{suffix}", [t for t in tasks if task_family(t) in BASE_FAMILIES])


def cycle_input(
    workdir: Path, base: Path, cycle_id: str, gpu_queue: str, *, corrupt: bool = False
) -> CycleInput:
    """The demo's cycle: learn the new families with half base replay; judge on held-out seeds."""
    return CycleInput(
        cycle_id=cycle_id,
        settings=CycleSettings(
            state_dir=str(workdir / "state"),
            tasksets_root=str(workdir / "tasksets"),
            release_db_url=f"sqlite:///{workdir / 'release.db'}",
            base_model=str(base),
            primary=TaskSource(specs=("demo-new-train",)),
            replay=TaskSource(specs=("demo-base-train",)),
            suites=(
                Suite(name="base", tasks=TaskSource(specs=("demo-base-eval",))),
                Suite(name="promoted", tasks=TaskSource(specs=("demo-new-eval",))),
            ),
            gate_rules=DEMO_RULES,
            verifier_cards=tuple(card_evidence(REPO_CARD)),
            corrupt=corrupt,
            force_gate=corrupt,
            epochs=40,
            batch_size=8,
            lr=5e-3,
            rank=8,
            checkpoint_every=20,
            canary_share=0.5,
            decide_every_s=1.0,
            canary_max_s=90.0,
            gpu_queue=gpu_queue,
            train_heartbeat_s=60.0,
        ),
    )


def run_day(
    url: str,
    tasks: list[Task],
    canary: tuple[str, str] | None,
    observe: Callable[..., bool],
) -> list[tuple[Task, str, bool]]:
    """Serve every case by the champion or (its share) the canary `(adapter id, served name)`,
    score it in the environment, and count it for its arm."""
    from training.evaluate import run_suite

    out = []
    for task in tasks:
        adapter: str | None = None
        model, route = BASE_NAME, "champion"
        if canary is not None and bucket(DEMO_CANARY_SECRET, canary[0], task.task_id) < 0.5:
            (adapter, model), route = canary, "canary"
        trial = run_suite(ServedPolicy(f"{url}/v1", model, DEMO_KEYS.serving), "day-2", [task], [0]).trials[0]
        observe(f"day2-{task.task_id}", adapter, trial.passed, route=route)
        out.append((task, model, trial.passed))
    return out


def passes(url: str, model: str, tasks: list[Task]) -> dict[str, list[bool]]:
    """Per family, whether the served `model` passes each of `tasks`."""
    from training.evaluate import run_suite

    out: dict[str, list[bool]] = {}
    for trial in run_suite(ServedPolicy(f"{url}/v1", model, DEMO_KEYS.serving), "day-2", tasks, [0]).trials:
        out.setdefault(trial.family, []).append(trial.passed)
    return out


def family_rates(before: dict[str, list[bool]], after: dict[str, list[bool]]) -> list[FamilyRates]:
    """Both models' pass rates per family, new families first."""
    order = sorted(before, key=lambda f: (f not in NEW_FAMILIES, f))
    return [
        FamilyRates(
            family=f,
            before=Rate(sum(before[f]), len(before[f])),
            after=Rate(sum(after.get(f, [])), len(after.get(f, []))),
        )
        for f in order
    ]


def _share(rates: list[FamilyRates], families: tuple[str, ...], pick: str) -> float:
    chosen = [getattr(r, pick) for r in rates if r.family in families]
    total = sum(r.total for r in chosen)
    return sum(r.passed for r in chosen) / total if total else 0.0


async def _cycle(
    address: str, data: CycleInput, manager: ReleaseManager, url: str, day: list[Task], console: Console
) -> tuple[CycleResult, list[tuple[Task, str, bool]]]:
    from temporalio.worker import Worker

    from workflows.improvement.activities import ImprovementActivities
    from workflows.improvement.trigger import start_cycle
    from workflows.improvement.workflows import ImprovementCycleWorkflow, cycle_workflow_id
    from workflows.promotion.client import connect
    from workflows.worker import improvement_functions

    client = await connect(address)
    cpu = f"demo-cpu-{uuid.uuid4().hex[:8]}"
    activities = ImprovementActivities()
    async with (
        Worker(
            client,
            task_queue=cpu,
            workflows=[ImprovementCycleWorkflow],
            activities=improvement_functions(activities),
            activity_executor=ThreadPoolExecutor(2),
        ),
        Worker(
            client,
            task_queue=data.settings.gpu_queue,
            activities=[activities.train_adapter],
            activity_executor=ThreadPoolExecutor(1),
            max_concurrent_activities=1,
        ),
    ):
        await start_cycle(client, data, cpu)
        handle = client.get_workflow_handle(cycle_workflow_id(data.cycle_id), result_type=CycleResult)
        outcome = asyncio.ensure_future(handle.result())
        with console.status("improvement cycle on Temporal…") as status:
            while True:
                record = await asyncio.to_thread(manager.store.get, data.cycle_id)
                if record is not None and record.state == "canary":
                    break
                if outcome.done():
                    return outcome.result(), []
                stage = await handle.query(ImprovementCycleWorkflow.stage)
                status.update(f"improvement cycle on Temporal: {stage} (training on the gpu queue)…")
                await asyncio.sleep(1.0)
            status.update(f"canary {record.served_name} live for 50% of work items: serving the second day…")
            load = {"lora_name": record.served_name, "lora_path": record.folder}
            httpx.post(
                f"{url}/v1/load_lora_adapter", json=load, headers=_bearer(DEMO_KEYS.release), timeout=60
            ).raise_for_status()
            canary = (record.adapter_id, record.served_name)
            served = await asyncio.to_thread(run_day, url, day, canary, manager.observe)
            status.update("the sequential test decides…")
            return await outcome, served


def improvement_stage(
    console: Console, *, temporal_address: str, workdir: Path, state: Path, corrupt: bool = False
) -> ImprovementSummary:
    """Run the stage (see the module docstring); `corrupt` trains a deliberately bad adapter that is
    forced through the gate, to show the canary rolling it back."""
    from training.policies import load_policy
    from training.serve.app import create_app

    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    base = champion_model(state, console)
    publish_sets(workdir / "tasksets")
    cycle_id = f"cycle-{'bad' if corrupt else 'good'}-{uuid.uuid4().hex[:6]}"
    data = cycle_input(workdir, base, cycle_id, f"demo-gpu-{uuid.uuid4().hex[:8]}", corrupt=corrupt)
    store = SqlReleaseStore(data.settings.release_db_url)
    store.create_schema()
    manager = ReleaseManager(store)
    summary = ImprovementSummary(adapter_id=cycle_id, forced=corrupt)
    day = day_two()
    new_cases = [t for t in day if task_family(t) in NEW_FAMILIES]

    def registered(served_name: str) -> str | None:
        found = store.by_served_name(served_name)
        return found.fingerprint if found is not None else None

    app = create_app(
        lambda adapter, name: load_policy(base, adapter, name=name),
        BASE_NAME,
        keys=DEMO_KEYS,
        adapter_root=Path(data.settings.state_dir) / "adapters",
        registered=registered,
    )
    with serve_in_thread(app, name="serve-policy") as url:
        console.print(
            f"loopline serve-policy at {url}/v1 serving {BASE_NAME}; second day: {len(day)} fresh cases"
        )
        result, served = asyncio.run(_cycle(temporal_address, data, manager, url, day, console))
        before = passes(url, BASE_NAME, day)
        after: dict[str, list[bool]] = {}
        record = store.get(cycle_id)
        if record is not None and record.served_name in [
            m["id"] for m in httpx.get(f"{url}/v1/models", headers=_bearer(DEMO_KEYS.serving)).json()["data"]
        ]:
            after = passes(url, record.served_name, day)
    summary.families = family_rates(before, after)
    summary.before = _share(summary.families, NEW_FAMILIES, "before")
    summary.after = _share(summary.families, NEW_FAMILIES, "after")
    summary.day = [(t.task_id, task_family(t), model, passed) for t, model, passed in served]
    canary_outcomes, champion_outcomes = store.observations(cycle_id)
    summary.path = llr_path(canary_outcomes, champion_outcomes)
    summary.gate_passed, summary.decision, summary.reason = result.gate_passed, result.decision, result.reason
    summary.new_cases, summary.day2_episodes = len(new_cases), len(served)
    summary.canary_episodes = sum(model != BASE_NAME for _, model, _ in served)
    summary.events = manager.events(cycle_id)
    summary.trail = [e["type"] for e in summary.events]
    summary.seconds = time.monotonic() - started
    (workdir / f"{cycle_id}.json").write_text(json.dumps(asdict(summary), indent=1, default=str))
    return summary


def print_summary(console: Console, summary: ImprovementSummary) -> None:
    """The stage's lines in the demo's report."""
    gate = "passed" if summary.gate_passed else "[red]stopped it[/]"
    if summary.forced:
        gate += " (forced through on purpose: --corrupt)"
    console.print(
        f"improvement: adapter {summary.adapter_id}, gate {gate}; second day {summary.day2_episodes} episodes, "
        f"{summary.canary_episodes} served by the canary"
    )
    console.print(
        f"new cases of the day ({summary.new_cases}): pass rate {summary.before:.0%} (champion) → "
        f"{summary.after:.0%} (adapter)"
    )
    colour = "green" if summary.decision == "promote" else "red"
    console.print(f"canary decision: [{colour}]{summary.decision}[/]: {summary.reason}")
    console.print(
        "release events: " + ", ".join(t.removeprefix("loopline.").removesuffix(".v1") for t in summary.trail)
    )
    for problem in summary.problems():
        console.print(f"[red]the loop did not close:[/] {problem}")
