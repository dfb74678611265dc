"""The state folder: the state file is the truth, pid files mirror it, a broken file is one line."""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from loopline.stack.errors import StackStateError
from loopline.stack.processes import ProcessRecord
from loopline.stack.state import Endpoints, StackLayout, StackState


def _state(tmp_path: Path) -> StackState:
    record = ProcessRecord(
        name="tansu", pid=4242, argv=["tansu", "broker"], create_time=1.5, log=tmp_path / "logs" / "tansu.log"
    )
    return StackState(
        mode="embedded",
        broker_storage="memory",
        started_at=datetime.now(UTC),
        endpoints=Endpoints(bootstrap_servers="127.0.0.1:1", temporal_address="127.0.0.1:2"),
        processes={"tansu": record},
    )


def test_the_state_file_round_trips_and_writes_pid_files(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    state = _state(tmp_path)

    layout.write(state)

    assert layout.read() == state
    assert layout.pid_file("tansu").read_text() == "4242\n"


def test_clear_forgets_the_stack_but_keeps_logs_and_data(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    layout.write(_state(tmp_path))
    layout.log_file("tansu").write_text("kept\n")

    layout.clear()

    assert layout.read() is None
    assert not layout.pid_file("tansu").exists()
    assert layout.log_file("tansu").read_text() == "kept\n"
    assert layout.data_dir.is_dir()


def test_a_corrupt_state_file_is_a_one_line_error(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    layout.ensure()
    layout.state_file.write_text('{"mode": "sideways"}')

    with pytest.raises(StackStateError) as caught:
        layout.read()

    assert "\n" not in str(caught.value) and "stack.json" in str(caught.value)


def test_pid_files_without_a_state_file_are_stray(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    layout.ensure()
    layout.pid_file("temporal").write_text("1\n")

    assert layout.stray_pid_files() == ["temporal"]


def test_s3_credentials_are_made_once_and_private(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)

    first, second = layout.s3_credentials(), layout.s3_credentials()

    assert first == second and len(first.secret_access_key) >= 32
    mode = (tmp_path / "s3-credentials.json").stat().st_mode
    assert stat.S_IMODE(mode) == 0o600
