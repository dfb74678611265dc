"""`loopline train dataset` builds a dataset folder and says what is in it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from loopline.cli import app


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
