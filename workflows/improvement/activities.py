"""The improvement cycle's activities: each one step, idempotent, all I/O.

Every activity can run again after a crash or a retry and give the same result: a dataset of the
same content is reused, a trained adapter (its lineage written last) is not trained again, an
interrupted training resumes from its last checkpoint (`training.loop`: exactly the weights an
uninterrupted run gives), registration and the canary are checked state changes in the release
store. `train_adapter` runs on the `gpu` task queue and heartbeats every optimizer step.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from temporalio import activity

from training.data import DatasetSpec, LoadedTaskSet, build_dataset, load_task_set, write_dataset
from training.data.sources import only_families
from training.release.manager import ReleaseManager
from training.release.states import ReleaseError
from training.release.store import SqlReleaseStore
from workflows.improvement.models import (
    AdapterStep,
    CycleInput,
    DatasetResult,
    DecideResult,
    GateResult,
    RegisterResult,
    TaskSource,
    TrainInput,
    TrainResult,
)


def load_source(source: TaskSource, root: Path) -> list[LoadedTaskSet]:
    """Each spec once, or once per seed when it is built in; only the named families."""
    loaded: list[LoadedTaskSet] = []
    for spec in source.specs:
        first = load_task_set(spec, root=root, seed=source.seeds[0])
        sets = [first] + (
            [load_task_set(spec, root=root, seed=s) for s in source.seeds[1:]]
            if first.seed is not None
            else []
        )
        loaded += [only_families(s, frozenset(source.families)) for s in sets] if source.families else sets
    return loaded


def _manager(cycle: CycleInput) -> ReleaseManager:
    store = SqlReleaseStore(cycle.settings.release_db_url)
    store.create_schema()
    return ReleaseManager(store)


class ImprovementActivities:
    """The cycle's steps; stateless (every path comes with the input), so any worker can run them."""

    @activity.defn
    def build_dataset(self, cycle: CycleInput) -> DatasetResult:
        """The PHI-safe chat dataset of the cycle's tasks and replay buffer (`cycle-<id>`)."""
        s = cycle.settings
        root = Path(s.tasksets_root)
        spec = DatasetSpec(
            name=f"cycle-{cycle.cycle_id}",
            primary=tuple(load_source(s.primary, root)),
            replay=tuple(load_source(s.replay, root) + load_source(s.rehearsal, root)),
            replay_ratio=s.replay_ratio if s.replay.specs or s.rehearsal.specs else 0.0,
            corrupt=s.corrupt,
        )
        built = build_dataset(spec)
        folder = write_dataset(built, Path(s.state_dir) / "datasets")
        return DatasetResult(
            folder=str(folder), rows=built.manifest.rows, content_hash=built.manifest.content_hash
        )

    @activity.defn
    def train_adapter(self, data: TrainInput) -> TrainResult:
        """LoRA SFT of the cycle's adapter; heartbeats each step; resumes from the last checkpoint.
        The finished adapter opens its stream with `adapter.trained` (once, whatever the retries)."""
        from training.loop import LoopConfig, StepReport
        from training.lora import LoraSettings, read_lineage
        from training.registry import record_trained
        from training.structured.sft import sft_structured

        s = data.cycle.settings
        out = Path(s.state_dir) / "adapters" / data.cycle.cycle_id

        def beat(report: StepReport) -> None:
            activity.heartbeat(report.step, report.total)

        if not (out / "lineage.json").is_file():  # written last: without it the adapter is unfinished
            activity.heartbeat("loading")
            sft_structured(
                Path(s.base_model),
                Path(data.dataset_folder),
                out,
                settings=LoraSettings(r=s.rank, alpha=2 * s.rank),
                loop=LoopConfig(
                    epochs=s.epochs,
                    batch_size=s.batch_size,
                    lr=s.lr,
                    seed=0,
                    checkpoint_every=s.checkpoint_every,
                ),
                on_step=beat,
                progress=lambda stage, done, total: activity.heartbeat(stage, done, total),
            )
        record_trained(_manager(data.cycle), out, adapter_id=data.cycle.cycle_id)
        done = read_lineage(out)["training"]
        return TrainResult(
            adapter_folder=str(out),
            steps=done["steps"],
            resumed_from=done["resumed_from"],
            final_loss=done["final_loss"],
        )

    @activity.defn
    def evaluate_adapter(self, step: AdapterStep) -> int:
        """Pair the adapter against the champion on every suite; the report is stored with it.
        Returns the number of trials run."""
        from training.evaluate import EvalReport, pair, run_suite
        from training.policies import load_policy
        from training.registry import store_report

        s = step.cycle.settings
        base, folder = Path(s.base_model), Path(step.adapter_folder)
        if (folder / "evaluation.json").is_file():  # evaluated already (a retried activity)
            return 0
        champion = _manager(step.cycle).routing().champion
        theirs = (
            load_policy(base, Path(champion.folder), name=champion.adapter_id)
            if champion is not None
            else load_policy(base, name=f"base:{base.name}")
        )
        mine = load_policy(base, folder, name=folder.name)
        root = Path(s.tasksets_root)
        paired = []
        trials = 0
        for suite in s.suites:
            tasks = [t for loaded in load_source(suite.tasks, root) for t in loaded.tasks]
            runs = [run_suite(p, suite.name, tasks, s.eval_seeds) for p in (mine, theirs)]
            activity.heartbeat(suite.name)
            paired.append(pair(runs[0], runs[1]))
            trials += 2 * len(runs[0].trials)
        store_report(
            folder,
            EvalReport(
                candidate=mine.ref.model, champion=theirs.ref.model, seeds=list(s.eval_seeds), suites=paired
            ),
        )
        return trials

    @activity.defn
    def gate_adapter(self, step: AdapterStep) -> GateResult:
        """Apply the gate to the stored evaluation and keep the verdict with the adapter."""
        from training.gate import DEFAULT_RULES, judge
        from training.registry import champion_cards, read_evaluation, store_verdict

        folder = Path(step.adapter_folder)
        report, stored = read_evaluation(folder)
        if stored is not None:  # judged already (a retried activity)
            return GateResult(passed=stored.passed, reasons=tuple(stored.reasons))
        rules = step.cycle.settings.gate_rules or DEFAULT_RULES
        cards = step.cycle.settings.verifier_cards
        manager = _manager(step.cycle)
        recorded = champion_cards(manager, report.champion) if cards else []
        verdict = judge(report, rules, cards=cards, champion_cards=recorded)
        store_verdict(folder, report, rules, verdict, manager, adapter_id=step.cycle.cycle_id)
        return GateResult(passed=verdict.passed, reasons=tuple(verdict.reasons))

    @activity.defn
    def register_adapter(self, step: AdapterStep) -> RegisterResult:
        """Enter the adapter as a candidate (once, whatever the retries), unless the gate stopped it."""
        from training.registry import read_evaluation

        folder = Path(step.adapter_folder)
        _report, verdict = read_evaluation(folder)
        passed = verdict.passed if verdict is not None else False
        if not passed and not step.cycle.settings.force_gate:
            return RegisterResult(registered=False, served_name=None)
        record = _manager(step.cycle).register(
            folder,
            base_model=Path(step.cycle.settings.base_model).name,
            gate_passed=passed,
            gate_reasons=verdict.reasons if verdict else (),
            force=step.cycle.settings.force_gate,
            adapter_id=step.cycle.cycle_id,
        )
        return RegisterResult(registered=True, served_name=record.served_name)

    @activity.defn
    def deploy_canary(self, step: AdapterStep) -> float:
        """Route the canary share to the adapter (a no-op when it is the canary already)."""
        manager = _manager(step.cycle)
        record = manager.store.get(step.cycle.cycle_id)
        if record is not None and record.state == "canary":
            return record.traffic_share
        return manager.deploy_canary(step.cycle.cycle_id, step.cycle.settings.canary_share).traffic_share

    @activity.defn
    def decide_canary(self, step: AdapterStep) -> DecideResult:
        """Run the sequential test and act on it (a decided canary reports its stored decision)."""
        manager = _manager(step.cycle)
        adapter_id = step.cycle.cycle_id
        record = manager.store.get(adapter_id)
        if record is not None and record.state in ("champion", "rolled_back"):
            last = manager.events(adapter_id)
            decided = [e for e in last if e["type"].endswith(("promoted.v1", "rolled_back.v1"))][-1]
            decision = "promote" if decided["type"].endswith("promoted.v1") else "roll_back"
            return DecideResult(decision=decision, reason=decided["data"]["reason"])
        result = manager.decide(adapter_id)
        return DecideResult(decision=result.decision, reason=result.reason)

    @activity.defn
    def end_canary(self, step: AdapterStep) -> DecideResult:
        """Roll back a canary that stayed undecided for the longest canary allowed."""
        manager = _manager(step.cycle)
        result = manager.evaluate(step.cycle.cycle_id)
        with contextlib.suppress(ReleaseError):  # decided meanwhile, or rolled back by an earlier attempt
            manager.roll_back(
                step.cycle.cycle_id,
                reason=f"canary time ran out undecided: {result.reason}",
                metrics=result.evidence(),
            )
        return self.decide_canary(step)
