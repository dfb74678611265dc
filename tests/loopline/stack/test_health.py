"""`status` without servers: stopped, stale, and stray pid files (no network probes)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from loopline.stack.health import status
from loopline.stack.processes import ProcessRecord, spawn, stop
from loopline.stack.settings import StackSettings
from loopline.stack.state import Endpoints, StackLayout, StackState


def _write(tmp_path: Path, records: dict[str, ProcessRecord]) -> None:
    StackLayout(tmp_path).write(
        StackState(
            mode="embedded",
            broker_storage="memory",
            started_at=datetime.now(UTC),
            endpoints=Endpoints(bootstrap_servers="127.0.0.1:1", temporal_address="127.0.0.1:2"),
            processes=records,
        )
    )


def test_no_state_file_means_stopped(tmp_path: Path) -> None:
    assert status(StackSettings(state_dir=tmp_path), probe=False).overall == "stopped"


def test_recorded_processes_that_are_gone_are_stale(tmp_path: Path) -> None:
    dead = ProcessRecord(name="tansu", pid=2**22 + 1, argv=["tansu"], create_time=1.0, log=tmp_path / "t.log")
    _write(tmp_path, {"tansu": dead})

    result = status(StackSettings(state_dir=tmp_path), probe=False)

    assert result.overall == "stale"
    assert [(c.name, c.state, c.detail) for c in result.components] == [("tansu", "stale", "process gone")]


def test_some_running_and_some_gone_is_degraded(tmp_path: Path) -> None:
    alive, _ = spawn(
        "temporal", [sys.executable, "-c", "import time; time.sleep(60)"], env={}, log=tmp_path / "a.log",
        cwd=tmp_path, detach=False,
    )  # fmt: skip
    dead = ProcessRecord(name="tansu", pid=2**22 + 1, argv=["tansu"], create_time=1.0, log=tmp_path / "t.log")
    _write(tmp_path, {"temporal": alive, "tansu": dead})
    try:
        result = status(StackSettings(state_dir=tmp_path), probe=False)
    finally:
        stop([alive], timeout_s=5)

    assert result.overall == "degraded"
    assert {c.name: c.state for c in result.components} == {"temporal": "running", "tansu": "stale"}


def test_pid_files_without_a_state_file_are_stale(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    layout.ensure()
    layout.pid_file("tansu").write_text("123\n")

    assert status(StackSettings(state_dir=tmp_path), probe=False).overall == "stale"
