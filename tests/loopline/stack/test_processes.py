"""Processes: we stop what we started, and never a process that merely inherited its pid."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from loopline.stack.processes import ProcessRecord, liveness, spawn, stop

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
STUBBORN = [
    sys.executable,
    "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)",
]


def _spawn(tmp_path: Path, argv: list[str]) -> ProcessRecord:
    record, _ = spawn("sleeper", argv, env={}, log=tmp_path / "sleeper.log", cwd=tmp_path, detach=False)
    return record


def test_a_spawned_process_is_running_and_stops_on_sigterm(tmp_path: Path) -> None:
    record = _spawn(tmp_path, SLEEPER)

    assert liveness(record) == "running"
    assert stop([record], timeout_s=5) == {"sleeper": "stopped"}
    assert liveness(record) == "gone"


def test_a_pid_with_another_create_time_is_reported_recycled_and_left_alone(tmp_path: Path) -> None:
    record = _spawn(tmp_path, SLEEPER)
    impostor = record.model_copy(update={"create_time": record.create_time - 3600})
    try:
        assert liveness(impostor) == "recycled"
        assert stop([impostor], timeout_s=1) == {"sleeper": "not ours (pid recycled)"}
        assert liveness(record) == "running"
    finally:
        stop([record], timeout_s=5)


def test_a_pid_running_another_command_is_not_ours(tmp_path: Path) -> None:
    record = _spawn(tmp_path, SLEEPER)
    impostor = record.model_copy(update={"argv": ["/usr/bin/something-else"]})
    try:
        assert liveness(impostor) == "recycled"
    finally:
        stop([record], timeout_s=5)


def test_a_process_that_ignores_sigterm_is_killed_after_the_timeout(tmp_path: Path) -> None:
    record = _spawn(tmp_path, STUBBORN)
    deadline = time.monotonic() + 10
    while "ready" not in (tmp_path / "sleeper.log").read_text() and time.monotonic() < deadline:
        time.sleep(0.02)  # until the SIGTERM handler is installed

    started = time.monotonic()
    outcome = stop([record], timeout_s=0.5)

    assert outcome == {"sleeper": "killed"}
    assert time.monotonic() - started < 5
    assert liveness(record) == "gone"


def test_stopping_a_process_that_is_already_gone_says_so(tmp_path: Path) -> None:
    record = _spawn(tmp_path, [sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while liveness(record) == "running" and time.monotonic() < deadline:
        time.sleep(0.02)

    assert stop([record], timeout_s=1) == {"sleeper": "already gone"}
