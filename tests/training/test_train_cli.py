"""`loopline train dataset` builds a dataset folder and says what is in it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from envs.tasksets import dump_jsonl
from loopline.card.evidence import REPO_CARD
from loopline.cli import app
from loopline.release.registry import open_registry
from schemas.events import AdapterTrained
from training.data import LoadedTaskSet
from training.registry import EVALUATED


def test_train_dataset_writes_rows_and_a_manifest(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "train",
            "dataset",
            "d1",
            "-t",
            "toy",
            "--seeds",
            "0-1",
            "--out",
            str(tmp_path),
            "--root",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "d1" / "manifest.json").read_text())
    assert [s["label"] for s in manifest["sources"]] == ["toy (seed 0)", "toy (seed 1)"]
    assert manifest["rows"] == len((tmp_path / "d1" / "data.jsonl").read_text().splitlines()) > 0
    assert "d1: " in result.output


def test_train_dataset_names_a_task_set_it_cannot_load(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train", "dataset", "d", "-t", "no-such-set", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "cannot load no-such-set" in result.output


def test_train_dataset_refuses_bad_seeds(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train", "dataset", "d", "-t", "toy", "--seeds", "a-b"])
    assert result.exit_code != 0
    assert "not a list of seeds" in result.output


def test_dataset_sft_eval_and_gate_run_end_to_end(
    tiny_structured: Path, small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    chosen = [t for t in small_base.tasks if t.tags[0] in ("carc:1", "carc:2", "carc:B7")]
    tasks.write_text(dump_jsonl(chosen))
    state = ["--state", str(tmp_path / "state")]
    run = CliRunner().invoke
    made = run(app, ["train", "dataset", "d", "-t", str(tasks), "--families", "carc:2", *state])
    assert made.exit_code == 0, made.output
    trained = run(
        app,
        [
            "train",
            "sft",
            "a1",
            "--dataset",
            "d",
            "--base-model",
            str(tiny_structured),
            "--epochs",
            "2",
            "--r",
            "4",
            "--alpha",
            "8",
            *state,
        ],
    )
    assert trained.exit_code == 0, trained.output
    assert "adapter a1:" in trained.output
    evaluated = run(
        app,
        [
            "train",
            "eval",
            "a1",
            "--base-model",
            str(tiny_structured),
            "--base-suite",
            str(tasks),
            "--markdown",
            *state,
        ],
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert "| base | 3 |" in evaluated.output
    judged = run(app, ["train", "gate", "a1", "--max-loss", "base=100", *state])
    assert judged.exit_code == 0, judged.output
    assert "accepted" in judged.output
    stopped = run(app, ["train", "gate", "a1", "--min-gain", "base=50", *state])
    assert stopped.exit_code == 1 and "is below the required +50.0" in " ".join(stopped.output.split())
    shown = run(app, ["train", "report", "a1", *state])
    assert shown.exit_code == 0 and "gate: stopped" in shown.output
    card = json.loads(REPO_CARD.read_text())
    for block in card["agreement"]:
        block["fitness"] |= {"fit": False, "reason": "kappa 0.500 is below 0.8 on 195 labels"}
    (tmp_path / "card.json").write_text(json.dumps(card))
    unfit = run(
        app, ["train", "gate", "a1", "--max-loss", "base=100", "--card", str(tmp_path / "card.json"), *state]
    )
    assert unfit.exit_code == 1 and "not fit for training: kappa 0.500" in " ".join(unfit.output.split())
    stream = open_registry(tmp_path / "state", None).events("a1")
    assert stream[0]["type"] == AdapterTrained.TYPE and stream[0]["data"]["adapter"]["rank"] == 4
    events = [e for e in stream if e["type"] == EVALUATED]
    assert [e["data"]["passed"] for e in events] == [True, False, False]
    assert events[0]["data"]["verifier_cards"][0]["verifier"] == "rcm.v2"
    family = run(app, ["train", "gate", "a1", "--max-family-loss", "base=100", *state])
    assert family.exit_code == 0 and "no family drops more than 100.0 points" in " ".join(
        family.output.split()
    )
    bad = run(app, ["train", "gate", "a1", "--max-family-loss", "base=lots", *state])
    assert bad.exit_code == 2 and "is not SUITE=POINTS" in " ".join(bad.output.split())
