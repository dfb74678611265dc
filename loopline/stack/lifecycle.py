"""`up` and `down`: start the stack (or report the running one); stop exactly what we started.

Stop order: Tansu before SeaweedFS, so the broker never writes to an object store that is gone;
Temporal stops alongside both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from loopline.kafka.settings import KafkaSettings
from loopline.stack import readiness
from loopline.stack.binaries import temporal_bin
from loopline.stack.errors import ComponentFailed, StackStateError
from loopline.stack.processes import ProcessRecord, begin_stop, finish_stop, liveness, stop
from loopline.stack.settings import StackSettings
from loopline.stack.startup import Progress, start_embedded
from loopline.stack.state import Endpoints, StackLayout, StackState
from loopline.streams.event_keys import ensure_keys


def _silent(_: str) -> None:
    return None


@dataclass(frozen=True)
class UpResult:
    """What `up` found or started."""

    state: StackState
    already_running: bool
    elapsed_s: float
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DownResult:
    """What `down` stopped: component -> stopped | killed | already gone | not ours (pid recycled)."""

    mode: Literal["embedded", "external", "none"]
    outcomes: dict[str, str] = field(default_factory=dict)


def _any_running(state: StackState) -> bool:
    return any(liveness(record) == "running" for record in state.processes.values())


def _up_external(settings: StackSettings, layout: StackLayout, progress: Progress) -> StackState:
    assert settings.bootstrap_servers is not None and settings.temporal_address is not None
    existing = layout.read()
    if existing is not None and existing.mode == "embedded" and _any_running(existing):
        raise StackStateError(f"an embedded stack is running from {layout.root}; run `loopline down` first")
    progress("checking the external Kafka and Temporal")
    kafka = KafkaSettings(bootstrap_servers=settings.bootstrap_servers, embedded=False)
    problem = readiness.kafka_reachable(kafka)
    if problem is not None:
        raise ComponentFailed(
            f"Kafka at {settings.bootstrap_servers} is unreachable ({problem}); check --bootstrap-servers"
        )
    problem = readiness.temporal_healthy(settings.temporal_address, binary=temporal_bin(settings.bin_dir))
    if problem is not None:
        raise ComponentFailed(
            f"Temporal at {settings.temporal_address} is not healthy ({problem}); check --temporal-address"
        )
    state = StackState(
        mode="external",
        started_at=datetime.now(UTC),
        endpoints=Endpoints(
            bootstrap_servers=settings.bootstrap_servers, temporal_address=settings.temporal_address
        ),
    )
    layout.write(state)
    return state


def up(settings: StackSettings, *, progress: Progress = _silent, detach: bool = True) -> UpResult:
    """Start the stack `settings` describe (or report the one already running) and wait until ready.

    `detach=False` ties the servers to the calling thread's life (Linux), for test sessions.
    """
    started = time.monotonic()
    layout = StackLayout(settings.state_dir)
    if settings.external:
        state = _up_external(settings, layout, progress)
        return UpResult(state=state, already_running=False, elapsed_s=time.monotonic() - started)

    notes: list[str] = []
    existing = layout.read()
    if existing is not None and existing.mode == "embedded":
        live = {name: liveness(record) for name, record in existing.processes.items()}
        if live and all(value == "running" for value in live.values()):
            if existing.broker_storage != settings.broker_storage:
                notes.append(
                    f"the running broker uses {existing.broker_storage} storage; "
                    f"run `loopline down` first to switch to {settings.broker_storage}"
                )
            if (existing.endpoints.sql_url is not None) != (settings.sql == "postgres"):
                running = "postgres" if existing.endpoints.sql_url else "sqlite"
                notes.append(f"the running stack uses {running} for SQL; run `loopline down` first to switch")
            elapsed = time.monotonic() - started
            return UpResult(state=existing, already_running=True, elapsed_s=elapsed, notes=notes)
        gone = sorted(name for name, value in live.items() if value != "running")
        notes.append(f"found a stale stack ({', '.join(gone) or 'nothing'} not running); restarted it")
        stop(list(existing.processes.values()), settings.stop_timeout_s)
        layout.clear()
    last = layout.last_ports()
    # Each named producer's event signing key and the verifiers' public file, made once under the
    # state folder (loopline/streams/event_keys.py).
    ensure_keys(layout.root / "keys")
    state = start_embedded(settings, layout, progress, detach)
    if settings.port_mode == "auto" and last is not None and state.ports != last:
        notes.append("the last ports were taken, so the stack has new endpoints: restart its clients")
    return UpResult(state=state, already_running=False, elapsed_s=time.monotonic() - started, notes=notes)


def down(settings: StackSettings) -> DownResult:
    """Stop the processes recorded in the state folder (only those still ours) and forget them."""
    layout = StackLayout(settings.state_dir)
    state = layout.read()
    if state is None:
        layout.clear()  # stray pid files of a crashed `up` carry no identity to check, so no kill
        return DownResult(mode="none")
    if state.mode == "external":
        layout.clear()
        return DownResult(mode="external")
    procs = state.processes
    timeout = settings.stop_timeout_s

    def only(name: str) -> list[ProcessRecord]:
        return [procs[name]] if name in procs else []

    temporal = begin_stop(only("temporal") + only("postgres"))
    outcomes = stop(only("tansu"), timeout)
    outcomes |= stop(only("seaweedfs"), timeout)
    outcomes |= finish_stop(temporal, timeout)
    layout.clear()
    return DownResult(mode="embedded", outcomes=outcomes)
