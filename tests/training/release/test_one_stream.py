"""An adapter has one event stream: training, the gate's verdict and every release step continue
the same hash chain in the registry, so publishing all of it never forks `adapter:<id>`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.chain import verify_chain
from schemas.codec import from_structured
from schemas.events import AdapterTrained
from schemas.gate import VerifierCardEvidence
from training.evaluate import EvalReport
from training.gate import DEFAULT_RULES, GateVerdict
from training.registry import champion_cards, read_events, record_trained, store_verdict
from training.release.manager import ReleaseManager
from training.release.store import SqlReleaseStore

pytestmark = pytest.mark.integration


def _trained(root: Path, name: str) -> Path:
    folder = root / "adapters" / name
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text(json.dumps({"r": 4}))
    (folder / "adapter_model.safetensors").write_bytes(name.encode() * 10)
    lineage = {
        "adapter_id": name,
        "created_at": "2026-12-02T04:00:00+00:00",
        "base_model": {"folder": "/models/base", "hash": "h", "name": "tiny-llama"},
        "parent_adapter_id": None,
        "dataset": {"content_hash": "d" * 64},
        "task_set_versions": {"rcm-promoted": 3, "rcm-base": None},
        "hyperparameters": {"lora": {"r": 4, "alpha": 8, "target_modules": ["q_proj", "v_proj"]}},
        "training": {"steps": 12, "final_loss": 0.25, "resumed_from": None},
    }
    (folder / "lineage.json").write_text(json.dumps(lineage))
    return folder


def test_training_the_gate_and_release_write_one_chain_per_adapter(tmp_path: Path) -> None:
    store = SqlReleaseStore(f"sqlite:///{tmp_path / 'release.db'}")
    store.create_schema()
    published: list[dict[str, object]] = []
    manager = ReleaseManager(store, publish=published.append)
    folder = _trained(tmp_path, "cycle-1")

    first = record_trained(manager, folder)
    assert record_trained(manager, folder) == first  # a retried training step tells it once
    assert isinstance(first.data, AdapterTrained)
    meta = first.data.adapter
    assert (meta.rank, meta.alpha, meta.target_modules) == (4, 8.0, ("q_proj", "v_proj"))
    assert meta.task_set_versions == {"rcm-promoted": 3} and meta.base_model == "tiny-llama"

    report = EvalReport(candidate="cycle-1", champion="base", seeds=[0], suites=[])
    store_verdict(folder, report, DEFAULT_RULES, GateVerdict(passed=True, checks=[], reasons=[]), manager)
    manager.register(folder, base_model="tiny-llama", gate_passed=True)
    manager.deploy_canary("cycle-1", 0.5)

    stream = read_events(manager, "cycle-1")
    kinds = [e.type.removeprefix("loopline.adapter.").removesuffix(".v1") for e in stream]
    assert kinds == ["trained", "evaluated", "registered", "deployed"]
    assert [e.seq for e in stream] == [0, 1, 2, 3] and verify_chain(stream) is None
    assert {e.episodeid for e in stream} == {"adapter:cycle-1"}
    # Each publish sends the stream from its start, so what the archive keeps (once per id) is
    # the one chain in order, and no step waits on an earlier one that was never sent.
    first_seen = list(dict.fromkeys(from_structured(doc).id for doc in published))
    assert first_seen == [e.id for e in stream]


def test_a_step_published_after_an_offline_gate_sends_the_gate_verdict_first(tmp_path: Path) -> None:
    store = SqlReleaseStore(f"sqlite:///{tmp_path / 'release.db'}")
    store.create_schema()
    folder = _trained(tmp_path, "cycle-2")
    report = EvalReport(candidate="cycle-2", champion="base", seeds=[0], suites=[])
    verdict = GateVerdict(passed=True, checks=[], reasons=[])
    store_verdict(folder, report, DEFAULT_RULES, verdict, ReleaseManager(store))  # not published
    published: list[dict[str, object]] = []
    ReleaseManager(store, publish=published.append).register(folder, base_model="b", gate_passed=True)
    assert [(d["seq"], d["type"]) for d in published] == [
        (0, "loopline.adapter.evaluated.v1"),
        (1, "loopline.adapter.registered.v1"),
    ]


def test_the_champions_cards_come_from_its_own_stream(tmp_path: Path) -> None:
    store = SqlReleaseStore(f"sqlite:///{tmp_path / 'release.db'}")
    store.create_schema()
    manager = ReleaseManager(store)
    folder = _trained(tmp_path, "champ")
    assert champion_cards(manager, "champ") == []
    report = EvalReport(candidate="champ", champion="base", seeds=[0], suites=[])
    for kappa in (0.7, 0.9):  # the latest verdict's cards count
        card = VerifierCardEvidence(verifier="rcm.v2", card="c", admitted=True, kappa=kappa)
        verdict = GateVerdict(passed=True, checks=[], reasons=[], verifier_cards=[card])
        store_verdict(folder, report, DEFAULT_RULES, verdict, manager)
    assert [c.kappa for c in champion_cards(manager, "champ")] == [0.9]
    assert champion_cards(manager, "base:tiny") == []
