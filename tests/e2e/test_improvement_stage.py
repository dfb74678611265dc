"""The demo's improvement stage end to end, small (`improvement_stage` with a tiny `StageConfig`): a
champion trained on one seed of the base set, which never saw a production case; a promoted set of
two such cases; `ImprovementCycleWorkflow` on the stack's Temporal with its cpu and gpu workers; a
second day through the bridge, the outbox, Kafka, the streams worker's archive and `loopline
adapters observe`; the canary's sequential test deciding on what production counted."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import torch
from rich.console import Console

from adapters.serving import serve_in_thread
from envs.domain import DOMAINS
from envs.rcm.tasks import generate_edge
from envs.tasksets import TaskSetRegistry
from loopline.demo.day_two import Production
from loopline.demo.improvement import (
    DEMO_KEYS,
    day_two,
    improvement_stage,
    is_promoted_case,
    passes,
)
from loopline.demo.stage_config import BASE_NAME, PROMOTED_SET, StageConfig
from loopline.demo.stage_summary import ImprovementSummary
from loopline.demo.worker import streams_worker
from loopline.kafka.topics import ensure_topics
from loopline.streams.event_keys import ensure_keys
from schemas.tasks import Task
from tests.conftest import StackHandle
from training.gate import GateRule, GateRules
from training.loop import LoopConfig
from training.policies import load_policy
from training.release.store import AdapterRecord, SqlReleaseStore
from training.serve.app import create_app
from training.structured.bootstrap import BootstrapSpec

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

CASES = ("deductible_only", "contradictory_remit")
"""What "stage 8" published: production cases of kinds the base set never holds (a zero-paid line
that is only the patient's deductible; a line paid and denied at once)."""
BASE_RULE = GateRule(suite="base", max_loss=10.0, loss_at="point")
"""The tiny gate's base rule: a 34-task base suite is too small for the default -2 at the interval's
bound (the last test shows the default gate stopping this cycle)."""
TINY = StageConfig(
    champion=BootstrapSpec(seeds=(1,), d_model=32, layers=1, heads=2, loop=LoopConfig(epochs=10)),
    train_per_case=8,
    eval_per_case=10,
    day_per_case=16,
    base_eval=(0, 2),
    day_base=(11, 1),
    gate_rules=GateRules(rules=[GateRule(suite="promoted", min_gain=40.0), BASE_RULE]),
)
"""16 instances of each case on the day: with a 50% canary the sequential test's 8 straight wins
then come before the day ends all but always."""


@pytest.fixture(scope="module")
def champion_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The state folder the tiny champion is trained into once (both tests use it)."""
    return tmp_path_factory.mktemp("champion")


def _promoted() -> list[Task]:
    edge = {t.task_id: t for t in generate_edge(0, per_kind=1)}
    return [edge[f"rcm-edge-{kind}-000"] for kind in CASES]


def _production(stack: StackHandle, root: Path, stem: str) -> Production:
    """The production plumbing the demo's first day leaves: topics, keys, an archive, a streams worker."""
    topic, dlq, anchors = (f"{stem}.{kind}.v1" for kind in ("events", "dlq", "checkpoints"))
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq, anchors], partitions=2)
    ensure_keys(root / "keys")
    db_url = f"sqlite:///{root / 'archive.db'}"
    demo = DOMAINS.get("rcm").demo
    assert demo is not None
    vocabulary = root / "vocabulary.json"
    vocabulary.write_text(json.dumps(demo.vocabulary()))
    return Production(
        kafka=stack.kafka,
        topic=topic,
        db_url=db_url,
        keys=root / "keys",
        checkpoints=root / "checkpoints",
        checkpoint_topic=anchors,
        streams_worker=lambda: streams_worker(root, stack.kafka, db_url, topic, vocabulary),
    )


def _stage(stack: StackHandle, stem: str, state: Path, root: Path, config: StageConfig) -> ImprovementSummary:
    TaskSetRegistry(root / "promotion").publish(PROMOTED_SET, _promoted())
    threads = torch.get_num_threads()
    summary = improvement_stage(
        Console(),
        temporal_address=stack.temporal_address,
        workdir=root / "improvement",
        state=state,
        promoted_root=root / "promotion",
        production=_production(stack, root, stem),
        config=config,
    )
    assert torch.get_num_threads() == threads  # the stage leaves the process's torch as it found it
    return summary


def _served_rates(champion: Path, record: AdapterRecord, tasks: list[Task]) -> tuple[float, float]:
    """Champion and adapter pass rates on `tasks`, each served by `loopline serve-policy`'s app."""
    app = create_app(
        lambda adapter, name: load_policy(champion, adapter, name=name),
        BASE_NAME,
        keys=DEMO_KEYS,
        adapter_root=Path(record.folder).parent,
        registered=lambda name: record.fingerprint if name == record.served_name else None,
    )
    with serve_in_thread(app, name="serve-policy") as url:
        load = {"lora_name": record.served_name, "lora_path": record.folder}
        headers = {"Authorization": f"Bearer {DEMO_KEYS.release}"}
        httpx.post(f"{url}/v1/load_lora_adapter", json=load, headers=headers, timeout=60).raise_for_status()
        rates = []
        for model in (BASE_NAME, record.served_name):
            outcomes = [p for family in passes(url, model, tasks).values() for p in family]
            rates.append(sum(outcomes) / len(outcomes))
    return rates[0], rates[1]


def test_the_stage_promotes_an_adapter_that_gains_on_the_promoted_cases_and_holds_base(
    stack: StackHandle, unique_topic: str, champion_state: Path, tmp_path: Path
) -> None:
    summary = _stage(stack, unique_topic, champion_state, tmp_path, TINY)
    assert summary.problems() == []

    # The canary served production traffic, and the sequential test promoted it on what was counted.
    assert summary.decision == "promote" and summary.canary_episodes > 0
    trail = [t.split(".")[2] for t in summary.trail]
    assert trail == ["trained", "evaluated", "registered", "deployed", "promoted", "deployed"], trail
    promoted = next(e["data"] for e in summary.events if e["type"].endswith("adapter.promoted.v1"))
    assert promoted["decided_by"] == "sequential_test" and promoted["evidence"]["canary_wins"] > 0
    # Through the bridge, the promoted cases the adapter worked passed more often than the champion's.
    champion, adapter = (
        [ok for _case, family, served, ok in summary.day if is_promoted_case(family) and served == who]
        for who in (BASE_NAME, summary.adapter_id)
    )
    assert champion and adapter and sum(adapter) / len(adapter) > sum(champion) / len(champion)

    # A real gain on every promoted case, on the day's instances, none of them trained on or judged.
    sets = TaskSetRegistry(tmp_path / "improvement" / "tasksets")
    used = {
        t.compute_hash()
        for name in ("demo-promoted-train", "demo-promoted-eval")
        for t in sets.load(name).tasks
    }
    day = [t for t in day_two(_promoted(), TINY) if t.task_id in {case for case, *_ in summary.day}]
    assert len(day) == summary.day2_episodes and not used & {t.compute_hash() for t in day}
    cases = [r for r in summary.families if is_promoted_case(r.family)]
    assert len(cases) == len(CASES) and all(r.after.value > r.before.value for r in cases)
    assert 100 * (summary.after - summary.before) >= TINY.min_gain_points

    # The base change is the one the gate measured, and within its rule.
    evaluated = next(e["data"] for e in summary.events if e["type"].endswith("adapter.evaluated.v1"))
    base = next(s for s in evaluated["suites"] if s["suite"] == "base")
    check = next(c for c in evaluated["checks"] if c["name"] == "base.max_loss")
    assert base["tasks"] == summary.sets["demo-base-eval"]
    assert check["passed"] and check["value"] <= BASE_RULE.max_loss  # a drop, in points
    assert check["value"] == pytest.approx(-100 * base["delta"])
    record = SqlReleaseStore(f"sqlite:///{tmp_path / 'improvement' / 'release.db'}").get(summary.adapter_id)
    assert record is not None
    served = _served_rates(
        champion_state / "models" / BASE_NAME, record, list(sets.load("demo-base-eval").tasks)
    )
    assert served == pytest.approx((base["champion"], base["candidate"]))


def test_a_cycle_the_default_gate_stops_is_named_a_problem(
    stack: StackHandle, unique_topic: str, champion_state: Path, tmp_path: Path
) -> None:
    """The same cycle under the product's default gate: over 34 base tasks, two a family, the tiny
    champion's adapter moves too many borderline cases for the default base rules (-2 at the
    interval's bound, no family down more than 10), so the gate stops it on base."""
    summary = _stage(stack, unique_topic, champion_state, tmp_path, replace(TINY, gate_rules=None))
    assert not summary.gate_passed and summary.decision == "stopped_by_gate"
    assert [t.split(".")[2] for t in summary.trail] == ["trained", "evaluated"]  # never registered
    assert summary.day2_episodes == summary.canary_episodes == 0
    problems = summary.problems()
    assert problems and problems[0].startswith("the gate stopped the cycle: base: ")
