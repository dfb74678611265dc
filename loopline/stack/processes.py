"""Start server processes and stop them again, never touching a process that is not ours.

A pid alone is not an identity: after a reboot or a long uptime the number comes back as some other
process. So every record keeps the process's create time and command line, and a pid whose create
time or command line differs is reported as `recycled` and left alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import psutil
from pydantic import BaseModel, ConfigDict

Liveness = Literal["running", "gone", "recycled"]
_PR_SET_PDEATHSIG = 1
_CREATE_TIME_TOLERANCE_S = 0.05
_STOP_POLL_S = 0.05


class ProcessRecord(BaseModel):
    """What `up` remembers about one process it started."""

    model_config = ConfigDict(frozen=True)

    name: str
    pid: int
    argv: list[str]
    create_time: float
    log: Path
    stop_signal: int = int(signal.SIGTERM)  # the graceful stop; SIGKILL follows after a timeout


def die_with_parent(sig: signal.Signals = signal.SIGTERM) -> Callable[[], None]:
    """A preexec hook (Linux): the kernel sends `sig` to the child when the parent thread ends.

    Test sessions use it so a killed pytest leaves no servers behind; `loopline up` does not,
    because its servers must outlive the command. It is the spawning *thread* that counts, so
    spawn from a thread that lives as long as the servers should.
    """

    def hook() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig))

    return hook


def spawn(
    name: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    log: Path,
    cwd: Path,
    detach: bool = True,
    stop_signal: signal.Signals = signal.SIGTERM,
    user: str | None = None,
) -> tuple[ProcessRecord, subprocess.Popen[bytes]]:
    """Start `argv` in its own session with stdout and stderr appended to `log` (as `user` when
    given: root starting Postgres, which refuses to run as root).

    Its own session keeps Ctrl-C in the user's terminal from reaching the servers. The Popen
    handle is for the starter only (exit codes during start-up); the record is what is persisted.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            # The parent-death signal is set after the uid change, which would clear it.
            preexec_fn=None if detach or sys.platform != "linux" else die_with_parent(stop_signal),
            user=user,
            group=None if user is None else pwd.getpwnam(user).pw_gid,
            extra_groups=None if user is None else [],
        )
    try:
        create_time = psutil.Process(proc.pid).create_time()
    except psutil.NoSuchProcess:
        create_time = 0.0  # it died at once; `liveness` reports it gone and `up` shows its log
    record = ProcessRecord(
        name=name,
        pid=proc.pid,
        argv=list(argv),
        create_time=create_time,
        log=log,
        stop_signal=int(stop_signal),
    )
    return record, proc


def _process(record: ProcessRecord) -> psutil.Process | None:
    """The live process `record` describes, or None when it is gone or the pid was recycled."""
    try:
        proc = psutil.Process(record.pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            _reap(record.pid)
            return None
        same_start = abs(proc.create_time() - record.create_time) <= _CREATE_TIME_TOLERANCE_S
        # A process tearing down has an empty cmdline before it becomes a zombie: still ours.
        cmdline = proc.cmdline()
        if not same_start or (cmdline and cmdline != record.argv):
            return None
        return proc
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def _reap(pid: int) -> None:
    # Our own exited children stay zombies until waited for; other processes' zombies are theirs.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def liveness(record: ProcessRecord) -> Liveness:
    """`running` (ours and alive), `gone`, or `recycled` (the pid now belongs to someone else)."""
    if _process(record) is not None:
        return "running"
    return "recycled" if psutil.pid_exists(record.pid) and not _is_zombie(record.pid) else "gone"


def _is_zombie(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


@dataclass
class Stopping:
    """Processes sent SIGTERM by `begin_stop`, not yet waited for."""

    live: dict[psutil.Process, str] = field(default_factory=dict)
    outcome: dict[str, str] = field(default_factory=dict)


def begin_stop(records: Sequence[ProcessRecord]) -> Stopping:
    """Send its stop signal to every record that is still ours; remember the rest as gone or recycled."""
    stopping = Stopping()
    for record in records:
        proc = _process(record)
        if proc is None:
            recycled = liveness(record) == "recycled"
            stopping.outcome[record.name] = "not ours (pid recycled)" if recycled else "already gone"
            continue
        stopping.live[proc] = record.name
        # psutil re-checks the create time before signalling, so a pid recycled since is spared.
        proc.send_signal(record.stop_signal)
    return stopping


def _running(proc: psutil.Process) -> bool:
    """False once `proc` has exited, zombie or not.

    A stopped server whose parent is gone waits as a zombie until init reaps it, which some
    container inits do only every few seconds; psutil's own wait would count that time as alive.
    """
    try:
        if proc.status() == psutil.STATUS_ZOMBIE:
            _reap(proc.pid)
            return False
        return bool(proc.is_running())
    except psutil.NoSuchProcess:
        return False


def _wait_exited(procs: Sequence[psutil.Process], timeout_s: float) -> list[psutil.Process]:
    """Wait up to `timeout_s` for `procs` to exit; return those still running."""
    deadline = time.monotonic() + timeout_s
    pending = [proc for proc in procs if _running(proc)]
    while pending and time.monotonic() < deadline:
        time.sleep(_STOP_POLL_S)
        pending = [proc for proc in pending if _running(proc)]
    return pending


def finish_stop(stopping: Stopping, timeout_s: float) -> dict[str, str]:
    """Wait up to `timeout_s` for the signalled processes, then SIGKILL the rest.

    Returns name -> `stopped`, `killed`, `already gone` or `not ours (pid recycled)`.
    """
    outcome = dict(stopping.outcome)
    alive = _wait_exited(list(stopping.live), timeout_s)
    for name in stopping.live.values():
        outcome[name] = "stopped"
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
        outcome[stopping.live[proc]] = "killed"
    _wait_exited(alive, 5.0)
    return outcome


def stop(records: Sequence[ProcessRecord], timeout_s: float) -> dict[str, str]:
    """Signal all `records` at once (SIGTERM unless recorded otherwise), SIGKILL what is left after `timeout_s`."""
    return finish_stop(begin_stop(records), timeout_s)
