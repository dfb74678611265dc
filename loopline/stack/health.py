"""`status`: is the recorded stack running, stopped, or stale, and can clients reach it?"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from loopline.stack import readiness
from loopline.stack.binaries import temporal_bin
from loopline.stack.postgres import ping
from loopline.stack.processes import liveness
from loopline.stack.settings import StackSettings
from loopline.stack.startup import kafka_settings
from loopline.stack.state import StackLayout, StackState

ComponentState = Literal["running", "stale", "reachable", "unreachable"]
Overall = Literal["running", "stopped", "stale", "degraded"]


@dataclass(frozen=True)
class ComponentStatus:
    """One line of `loopline status`."""

    name: str
    state: ComponentState
    pid: int | None = None
    endpoint: str | None = None
    log: Path | None = None
    detail: str = ""


@dataclass(frozen=True)
class StackStatus:
    """`running`: everything up (and reachable); `stopped`: nothing recorded; `stale`: pid files of
    processes that are gone; `degraded`: recorded and partly up, or up but unreachable."""

    overall: Overall
    state: StackState | None
    components: list[ComponentStatus] = field(default_factory=list)


def _endpoint(state: StackState, name: str) -> str | None:
    return {
        "seaweedfs": state.endpoints.s3,
        "tansu": state.endpoints.bootstrap_servers,
        "temporal": state.endpoints.temporal_address,
        "postgres": state.endpoints.sql_url,
    }.get(name)


def _probe(
    state: StackState, settings: StackSettings, kafka: bool = True, temporal: bool = True, sql: bool = False
) -> dict[str, str | None]:
    """Reachability of Kafka and Temporal, checked in parallel: name -> None or the problem.

    Only what may be up is asked: a dead endpoint costs the whole probe timeout.
    """
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {}
        if kafka:
            futures["kafka"] = pool.submit(readiness.kafka_reachable, kafka_settings(state), 2.0)
        if temporal:
            address = state.endpoints.temporal_address
            binary = temporal_bin(settings.bin_dir)
            futures["temporal"] = pool.submit(readiness.temporal_healthy, address, 2.0, binary=binary)
        if sql and state.ports is not None:
            futures["postgres"] = pool.submit(ping, state.ports.postgres)
        return {name: future.result() for name, future in futures.items()}


def status(settings: StackSettings, *, probe: bool = True) -> StackStatus:
    """The status of the stack recorded in `settings.state_dir`; `probe` also checks reachability."""
    layout = StackLayout(settings.state_dir)
    state = layout.read()
    if state is None:
        stray = layout.stray_pid_files()
        if not stray:
            return StackStatus(overall="stopped", state=None)
        comps = [ComponentStatus(name, "stale", detail="pid file without a state file") for name in stray]
        return StackStatus(overall="stale", state=None, components=comps)

    if state.mode == "external":
        problems = _probe(state, settings) if probe else {}
        comps = [
            ComponentStatus(
                "kafka",
                "unreachable" if problems.get("kafka") else "reachable",
                endpoint=state.endpoints.bootstrap_servers,
                detail=problems.get("kafka") or "",
            ),
            ComponentStatus(
                "temporal",
                "unreachable" if problems.get("temporal") else "reachable",
                endpoint=state.endpoints.temporal_address,
                detail=problems.get("temporal") or "",
            ),
        ]
        ok = all(comp.state == "reachable" for comp in comps)
        return StackStatus(overall="running" if ok else "degraded", state=state, components=comps)

    alive_by_name = {name: liveness(record) for name, record in state.processes.items()}
    problems = {}
    if probe:
        up = {name for name, alive in alive_by_name.items() if alive == "running"}
        problems = _probe(
            state, settings, kafka="tansu" in up, temporal="temporal" in up, sql="postgres" in up
        )
    comps = []
    for name, record in state.processes.items():
        alive = alive_by_name[name]
        problem = problems.get({"tansu": "kafka"}.get(name, name)) if alive == "running" else None
        detail = {"gone": "process gone", "recycled": "pid now belongs to another process"}.get(alive, "")
        comps.append(
            ComponentStatus(
                name,
                "running" if alive == "running" else "stale",
                pid=record.pid,
                endpoint=_endpoint(state, name),
                log=record.log,
                detail=f"unreachable: {problem}" if problem else detail,
            )
        )
    running = [comp for comp in comps if comp.state == "running"]
    if not running:
        overall: Overall = "stale"
    elif len(running) == len(comps) and not any(comp.detail for comp in comps):
        overall = "running"
    else:
        overall = "degraded"
    return StackStatus(overall=overall, state=state, components=comps)
