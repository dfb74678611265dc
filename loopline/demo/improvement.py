"""The demo's improvement stage: what stage 8 promoted comes back as an adapter, canaried on a second day.

1. The champion: the reference policy `loopline train bootstrap` trains (`training.structured.
   bootstrap`, `CHAMPION`: its defaults; about 8 minutes on one thread of an idle 2-core machine,
   once, cached under the state folder). It never saw a production fault, an unknown write outcome
   or a promoted case.
2. The cases: the task set stage 8 published (`rcm-promoted`, every draft the reviewer approved)
   and fresh instances of each promoted case (`envs.instances`: the same situation for another
   patient and claim, on other dates; each instance passes the promotion gates before it is used).
   Training reads one seed of instances plus replay of the champion's own base data; the gate's
   `promoted` suite another seed; the second day a third, with fresh base cases. No instance is
   used twice.
3. `ImprovementCycleWorkflow` runs on the stack's Temporal with a `cpu` and a `gpu` worker beside
   the demo: dataset, LoRA training, paired evaluation, the product's default gate
   (`training.gate.DEFAULT_RULES`: +40 points on `promoted` and at most -2 on `base`, both at the
   bound of the 95% interval, no base family down more than 10), registration, the canary.
4. The second production day: each case served through `loopline serve-policy`'s app on a real
   socket, by the champion or, for the canary's share of work items (sticky, keyed by the canary
   secret), by the adapter loaded at run time under its versioned name; each episode is scored by
   its task's verifier in the simulated environment and counted for its arm. The workflow runs the
   sequential test and decides on its own.
5. The report: the pass rate on the day's promoted-case instances before (champion) and after (the
   adapter), per case and per base family, the canary's decision with its evidence, the trail.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import httpx
from rich.console import Console

from adapters.serving import serve_in_thread
from envs.instances import INSTANCE_TAG, fresh_instances
from envs.rcm.instances import identities
from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetError, TaskSetRegistry
from loopline.card.evidence import REPO_CARD, card_evidence
from loopline.demo.charts import FamilyRates, Rate
from loopline.demo.day_two import Day, Production, serve_day
from loopline.demo.served import ServedPolicy
from loopline.demo.stage_config import (
    BASE_NAME,
    CHAMPION,
    DAY_SEED,
    DEMO_STAGE,
    EVAL_SEED,
    PROMOTED_SET,
    TORCH_THREADS,
    TRAIN_SEED,
    StageConfig,
)
from loopline.demo.stage_summary import ImprovementSummary
from schemas.tasks import Task
from training.data.sources import task_family
from training.release.manager import ReleaseManager
from training.release.sequential import llr_path
from training.release.store import SqlReleaseStore
from training.serve.access import AccessKeys
from training.structured.bootstrap import BootstrapSpec
from workflows.improvement.models import CycleInput, CycleResult, CycleSettings, Suite, TaskSource

DEMO_KEYS = AccessKeys(serving=secrets.token_urlsafe(24), release=secrets.token_urlsafe(24))
"""This run's policy-server keys: the scoring clients hold the serving key, the canary's load the
release key."""
DEMO_CANARY_SECRET = secrets.token_urlsafe(32)
"""This run's canary bucket key (the second day's bridge's `LOOPLINE_BRIDGE_CANARY_SECRET`)."""


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def promoted_tasks(root: Path) -> list[Task]:
    """The latest version of what stage 8 published under `root` (none: an empty list)."""
    try:
        return list(TaskSetRegistry(root).load(PROMOTED_SET).tasks)
    except TaskSetError:
        return []


def instances(promoted: list[Task], per_case: int, seed: int) -> list[Task]:
    """`per_case` fresh instances of each promoted case, each passing the promotion gates."""
    from workflows.promotion.candidate import gates

    return fresh_instances(promoted, per_case, seed=seed, identities=identities, check=lambda t: gates(t).ok)


def expressible(task: Task) -> bool:
    """Whether the demo's policy can write the task's gold: the structured policy copies every value
    it writes from what the tools returned, so a gold that writes a value no tool returns (a
    modifier a payer rule names only in its key) is beyond it, however it is trained. A language-model
    adapter has no such limit; the demo names such cases and leaves them out of its cycle."""
    from training.data.episodes import task_rows
    from training.structured.examples import abstract_row

    return all(abstract_row(row) is not None for row in task_rows(task, task_set="check", role="primary")[:1])


def is_promoted_case(family: str) -> bool:
    """Whether a family of the report is a promoted case (its instances), not a base family."""
    return family.startswith(INSTANCE_TAG)


def day_two(promoted: list[Task], config: StageConfig = DEMO_STAGE) -> list[Task]:
    """The second production day: fresh instances of every promoted case and fresh base cases,
    none of them trained on or judged by the gate (their own seeds)."""
    seed, per_carc = config.day_base
    return instances(promoted, config.day_per_case, DAY_SEED) + generate_base(seed, per_carc=per_carc)


def source_families(promoted: list[Task]) -> tuple[str, ...]:
    """The base families the promoted cases come from: the CARC of each adjustment on their work
    items (`CO-15` -> `carc:15`), as `rcm-base` names its families."""
    codes = {str(c) for t in promoted for c in t.work_item.payload.get("adjustment_codes", ())}
    return tuple(sorted(f"carc:{c.split('-', 1)[-1]}" for c in codes))


def champion_model(state: Path, console: Console, spec: BootstrapSpec = CHAMPION) -> Path:
    """The stage's champion (`spec`), trained once and reused from `state/models`."""
    from training.structured.bootstrap import bootstrap

    with console.status("the champion: the reference policy at the demo's size (once; cached)…") as status:
        return bootstrap(
            spec,
            root=state,
            taskset_root=state / "tasksets",
            name=BASE_NAME,
            progress=lambda stage, done, total: status.update(
                f"the champion (once; cached): {stage} {done}/{total}"
            ),
        )


def publish_sets(root: Path, promoted: list[Task], config: StageConfig = DEMO_STAGE) -> dict[str, int]:
    """The task sets the cycle reads (promoted-case instances to learn and to judge, the base
    suite); how many tasks each holds. Publishing the same tasks again adds no version."""
    registry = TaskSetRegistry(root)
    seed, per_carc = config.base_eval
    sets = {
        "demo-promoted-train": instances(promoted, config.train_per_case, TRAIN_SEED),
        "demo-promoted-eval": instances(promoted, config.eval_per_case, EVAL_SEED),
        "demo-base-eval": generate_base(seed, per_carc=per_carc),
    }
    for name, tasks in sets.items():
        registry.publish(name, tasks)
    return {name: len(tasks) for name, tasks in sets.items()}


def cycle_input(
    workdir: Path,
    base: Path,
    cycle_id: str,
    gpu_queue: str,
    *,
    families: tuple[str, ...] = (),
    corrupt: bool = False,
    config: StageConfig = DEMO_STAGE,
) -> CycleInput:
    """The stage's cycle: learn the promoted cases with base replay and a rehearsal of their own
    `families`; judge on unseen instances and unseen base cases, by the config's gate."""
    champion = config.champion
    return CycleInput(
        cycle_id=cycle_id,
        settings=CycleSettings(
            state_dir=str(workdir / "state"),
            tasksets_root=str(workdir / "tasksets"),
            release_db_url=f"sqlite:///{workdir / 'release.db'}",
            base_model=str(base),
            primary=TaskSource(specs=("demo-promoted-train",)),
            replay=TaskSource(specs=(champion.task_set,), seeds=champion.seeds),
            rehearsal=TaskSource(
                specs=(champion.task_set,) if families else (),
                seeds=config.rehearsal_seeds,
                families=families,
            ),
            replay_ratio=config.replay_ratio,
            suites=(
                Suite(name="base", tasks=TaskSource(specs=("demo-base-eval",))),
                Suite(name="promoted", tasks=TaskSource(specs=("demo-promoted-eval",))),
            ),
            gate_rules=config.gate_rules,
            verifier_cards=tuple(card_evidence(REPO_CARD)),
            corrupt=corrupt,
            force_gate=corrupt,
            epochs=config.epochs,
            batch_size=32,
            lr=2e-3,
            rank=16,
            checkpoint_every=20,
            canary_share=0.5,
            decide_every_s=1.0,
            canary_max_s=300.0,
            gpu_queue=gpu_queue,
            train_heartbeat_s=60.0,
        ),
    )


def passes(url: str, model: str, tasks: list[Task]) -> dict[str, list[bool]]:
    """Per family, whether the served `model` passes each of `tasks`."""
    from training.evaluate import run_suite

    out: dict[str, list[bool]] = {}
    for trial in run_suite(ServedPolicy(f"{url}/v1", model, DEMO_KEYS.serving), "day-2", tasks, [0]).trials:
        out.setdefault(trial.family, []).append(trial.passed)
    return out


def family_rates(before: dict[str, list[bool]], after: dict[str, list[bool]]) -> list[FamilyRates]:
    """Both models' pass rates per family, promoted cases first."""
    order = sorted(before, key=lambda f: (not is_promoted_case(f), f))
    return [
        FamilyRates(
            family=f,
            before=Rate(sum(before[f]), len(before[f])),
            after=Rate(sum(after.get(f, [])), len(after.get(f, []))),
        )
        for f in order
    ]


def promoted_share(rates: list[FamilyRates], pick: str) -> float:
    """Pass rate over every promoted case's instances, `before` or `after`."""
    chosen = [getattr(r, pick) for r in rates if is_promoted_case(r.family)]
    total = sum(r.total for r in chosen)
    return sum(r.passed for r in chosen) / total if total else 0.0


async def _cycle(
    address: str,
    data: CycleInput,
    manager: ReleaseManager,
    url: str,
    day: list[Task],
    production: Production,
    workdir: Path,
    console: Console,
) -> tuple[CycleResult, Day]:
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
                    return outcome.result(), Day([], [])
                stage = await handle.query(ImprovementCycleWorkflow.stage)
                status.update(f"improvement cycle on Temporal: {stage} (training on the gpu queue)…")
                await asyncio.sleep(1.0)
            status.update(f"canary {record.served_name} live: loading it into serve-policy…")
            load = {"lora_name": record.served_name, "lora_path": record.folder}
            httpx.post(
                f"{url}/v1/load_lora_adapter", json=load, headers=_bearer(DEMO_KEYS.release), timeout=60
            ).raise_for_status()

            def progress(done: int, total: int) -> None:
                status.update(
                    f"second production day through the bridge (canary {record.served_name}): {done}/{total} cases"
                )

            served = await asyncio.to_thread(
                serve_day,
                day,
                production=production,
                workdir=workdir / "day-two",
                policy_url=url,
                serving_key=DEMO_KEYS.serving,
                base_name=BASE_NAME,
                release_db_url=data.settings.release_db_url,
                release_state=Path(data.settings.state_dir),
                canary_secret=DEMO_CANARY_SECRET,
                canary_id=record.adapter_id,
                progress=progress,
            )
            status.update("the sequential test decides…")
            return await outcome, served


@contextmanager
def _torch_threads(count: int) -> Iterator[None]:
    """Torch on `count` intra-op threads meanwhile; the process's count is restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@_torch_threads(TORCH_THREADS)
def improvement_stage(
    console: Console,
    *,
    temporal_address: str,
    workdir: Path,
    state: Path,
    promoted_root: Path,
    production: Production,
    corrupt: bool = False,
    config: StageConfig = DEMO_STAGE,
) -> ImprovementSummary:
    """Run the stage (see the module docstring) on what stage 8 published under `promoted_root`;
    `corrupt` trains a deliberately bad adapter that is forced through the gate, to show the canary
    rolling it back. `config` sizes the stage (the demo's by default). Torch runs on `TORCH_THREADS`
    intra-op threads meanwhile (`_torch_threads`)."""
    from training.policies import load_policy
    from training.serve.app import create_app

    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    cycle_id = f"cycle-{'bad' if corrupt else 'good'}-{uuid.uuid4().hex[:6]}"
    summary = ImprovementSummary(adapter_id=cycle_id, forced=corrupt, claimed_gain=config.min_gain_points)
    published = promoted_tasks(promoted_root)
    promoted = [t for t in published if expressible(t)]
    summary.promoted_cases = len(promoted)
    summary.beyond_policy = [t.task_id for t in published if t not in promoted]
    if not promoted:
        return summary
    base = champion_model(state, console, config.champion)
    with console.status("fresh instances of each promoted case, each through the promotion gates…"):
        summary.sets = publish_sets(workdir / "tasksets", promoted, config)
        day = day_two(promoted, config)
    console.print(
        f"{len(promoted)} promoted cases; instances: "
        + ", ".join(f"{name} {n}" for name, n in summary.sets.items())
    )
    data = cycle_input(
        workdir,
        base,
        cycle_id,
        f"demo-gpu-{uuid.uuid4().hex[:8]}",
        families=source_families(promoted),
        corrupt=corrupt,
        config=config,
    )
    store = SqlReleaseStore(data.settings.release_db_url)
    store.create_schema()
    manager = ReleaseManager(store)
    new_cases = [t for t in day if is_promoted_case(task_family(t))]

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
            f"loopline serve-policy at {url}/v1 serving {BASE_NAME}; second day: {len(day)} fresh cases "
            f"({len(new_cases)} instances of promoted cases)"
        )
        result, served_day = asyncio.run(
            _cycle(temporal_address, data, manager, url, day, production, workdir, console)
        )
        before = passes(url, BASE_NAME, day)
        after: dict[str, list[bool]] = {}
        record = store.get(cycle_id)
        if record is not None and record.served_name in [
            m["id"] for m in httpx.get(f"{url}/v1/models", headers=_bearer(DEMO_KEYS.serving)).json()["data"]
        ]:
            after = passes(url, record.served_name, day)
    summary.families = family_rates(before, after)
    summary.before = promoted_share(summary.families, "before")
    summary.after = promoted_share(summary.families, "after")
    served = served_day.episodes
    summary.left_off_day = served_day.left_off
    summary.day = [
        (e.task.task_id, task_family(e.task), BASE_NAME if e.adapter_id is None else e.adapter_id, e.passed)
        for e in served
    ]
    canary_outcomes, champion_outcomes = store.observations(cycle_id)
    summary.path = llr_path(canary_outcomes, champion_outcomes)
    summary.gate_passed, summary.decision, summary.reason = result.gate_passed, result.decision, result.reason
    summary.new_cases, summary.day2_episodes = len(new_cases), len(served)
    summary.canary_episodes = sum(e.route == "canary" for e in served)
    summary.events = manager.events(cycle_id)
    summary.trail = [e["type"] for e in summary.events]
    summary.seconds = time.monotonic() - started
    (workdir / f"{cycle_id}.json").write_text(json.dumps(asdict(summary), indent=1, default=str))
    return summary
