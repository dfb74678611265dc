"""`loopline adapters`: an operator registers gated adapters, runs a canary, decides it, and
reads the trail; a gate-stopped adapter needs `--force`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from loopline.cli import app
from tests.loopline.gated import gated_adapter

pytestmark = pytest.mark.integration


def _run(state: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["adapters", *args, "--state", str(state)])
    assert result.exit_code == 0, result.output
    return result.output


def test_an_operator_takes_an_adapter_from_candidate_to_champion_and_back(tmp_path: Path) -> None:
    gated_adapter(tmp_path, "cycle-1")
    assert "registered as a candidate" in _run(tmp_path, "register", "cycle-1")
    assert "canary for 20%" in _run(tmp_path, "canary", "cycle-1", "--share", "0.2")
    assert "continue" in _run(tmp_path, "decide", "cycle-1")
    _run(tmp_path, "promote", "cycle-1", "--reason", "billing office signed off")
    listing = _run(tmp_path, "list")
    assert "cycle-1" in listing and "champion" in listing
    assert "serving: the base model" in _run(tmp_path, "rollback", "cycle-1", "--reason", "late denials rose")
    trail = [json.loads(line) for line in _run(tmp_path, "events", "cycle-1").splitlines()]
    assert [e["type"].split(".")[2] for e in trail] == [
        "evaluated",
        "registered",
        "deployed",
        "promoted",
        "deployed",
        "rolled_back",
    ]
    assert (
        trail[3]["data"]["decided_by"] == "operator"
        and trail[3]["data"]["reason"] == "billing office signed off"
    )


def test_a_gate_stopped_adapter_is_refused_unless_forced(tmp_path: Path) -> None:
    gated_adapter(tmp_path, "bad", passed=False, reasons=("base: drop +96.0 points exceeds the allowed 2.0",))
    refused = CliRunner().invoke(app, ["adapters", "register", "bad", "--state", str(tmp_path)])
    assert refused.exit_code == 2 and "the gate stopped bad" in refused.output
    assert "registered" in _run(tmp_path, "register", "bad", "--force")
    assert "forced" in _run(tmp_path, "list")


def test_an_adapter_without_a_verdict_or_an_unknown_one_gets_a_clear_error(tmp_path: Path) -> None:
    unknown = CliRunner().invoke(app, ["adapters", "register", "nope", "--state", str(tmp_path)])
    assert unknown.exit_code == 2 and "no adapter 'nope'" in unknown.output
    missing = CliRunner().invoke(app, ["adapters", "promote", "nope", "--state", str(tmp_path)])
    assert missing.exit_code == 2 and "no adapter 'nope' is registered" in missing.output
