"""Starting the embedded stack and waiting until it really works.

Order: SeaweedFS and Temporal are spawned at once (and Postgres with `--sql postgres`, after an
`initdb` on the first start). Temporal's health check then runs in a thread
while the main thread waits for the `tansu` bucket, spawns Tansu, and waits for a Kafka round trip.
Tansu starts only once the bucket exists because its s3 engine retries a missing object store on a
one-second backoff, which would cost up to a second of every `up`.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from loopline.kafka.settings import KafkaSettings
from loopline.stack import components, pgdata, ports, readiness
from loopline.stack import postgres as pg
from loopline.stack.binaries import StackBinaries
from loopline.stack.errors import ComponentFailed
from loopline.stack.logs import last_words
from loopline.stack.processes import ProcessRecord, spawn, stop
from loopline.stack.settings import StackPorts, StackSettings
from loopline.stack.state import Endpoints, S3Credentials, StackLayout, StackState

Progress = Callable[[str], None]
_POLL_S = 0.1  # between two real readiness checks


def kafka_settings(state: StackState) -> KafkaSettings:
    """Client settings for the stack `state` describes (embedded tuning only for Tansu)."""
    return KafkaSettings(
        bootstrap_servers=state.endpoints.bootstrap_servers, embedded=state.mode == "embedded"
    )


@dataclass(frozen=True)
class _Started:
    """A process just spawned: the record that is persisted and the handle that knows its exit code."""

    record: ProcessRecord
    popen: subprocess.Popen[bytes]


def _wait(
    what: str,
    check: Callable[[], str | None],
    watch: list[_Started],
    deadline: float,
    cancel: threading.Event | None = None,
) -> None:
    """Poll `check` (None = ready, else the reason) until ready; fail fast if a watched process dies."""
    reason = "not checked yet"
    while cancel is None or not cancel.is_set():
        for started in watch:
            code = started.popen.poll()
            if code is not None:
                log = started.record.log
                raise ComponentFailed(
                    f"{started.record.name} exited during start-up (code {code}): {last_words(log)} (log: {log})"
                )
        found = check()
        if found is None:
            return
        reason = found
        if time.monotonic() >= deadline:
            logs = ", ".join(str(started.record.log) for started in watch)
            raise ComponentFailed(f"{what} was not ready in time: {reason} (logs: {logs})")
        time.sleep(_POLL_S)


def _round_trip(kafka: KafkaSettings, deadline: float) -> str | None:
    try:
        readiness.kafka_round_trip(kafka, timeout_s=max(1.0, min(5.0, deadline - time.monotonic())))
    except readiness.NotReady as exc:
        return str(exc)
    return None


PORTS_RELEASE_WAIT_S = 10.0
"""How long `up` waits for the last ports to be released by the processes it just stopped."""


def choose_ports(
    settings: StackSettings, last: StackPorts | None = None, release_wait_s: float = PORTS_RELEASE_WAIT_S
) -> StackPorts:
    """The ports to use: in `auto` mode the `last` ones when all are free (clients that know them
    reconnect by themselves), else free ones; in `fixed` mode the configured ones, checked free."""
    fields = ports.needed_fields(
        with_seaweed=settings.broker_storage == "s3",
        with_ui=settings.temporal_ui,
        with_postgres=settings.sql == "postgres",
    )
    if settings.port_mode == "auto":
        if last is not None and ports.all_free(last, fields, wait_s=release_wait_s):
            return last
        return ports.pick_free_ports(fields)
    ports.ensure_free(settings.ports, fields)
    return settings.ports


class _Launcher:
    """Spawns components and keeps the state file current, so `down` can always clean up."""

    def __init__(
        self, settings: StackSettings, layout: StackLayout, chosen: StackPorts, detach: bool
    ) -> None:
        self.layout = layout
        self.detach = detach
        self.started: dict[str, _Started] = {}
        s3 = settings.broker_storage == "s3"
        self.state = StackState(
            mode="embedded",
            broker_storage=settings.broker_storage,
            started_at=datetime.now(UTC),
            endpoints=Endpoints(
                bootstrap_servers=f"{ports.HOST}:{chosen.kafka}",
                temporal_address=f"{ports.HOST}:{chosen.temporal}",
                temporal_ui=f"http://{ports.HOST}:{chosen.temporal_ui}" if settings.temporal_ui else None,
                s3=f"http://{ports.HOST}:{chosen.s3}" if s3 else None,
                sql_url=pgdata.url(chosen.postgres) if settings.sql == "postgres" else None,
            ),
            ports=chosen,
        )

    def launch(self, spec: components.ComponentSpec) -> _Started:
        log = self.layout.log_file(spec.name)
        record, popen = spawn(
            spec.name,
            spec.argv,
            env=spec.env,
            log=log,
            cwd=self.layout.root,
            detach=self.detach,
            stop_signal=spec.stop_signal,
            user=spec.user,
        )
        self.started[spec.name] = started = _Started(record, popen)
        records = {name: item.record for name, item in self.started.items()}
        self.state = self.state.model_copy(update={"processes": records})
        self.layout.write(self.state)
        return started

    def stop_all(self, timeout_s: float) -> None:
        stop([item.record for item in self.started.values()], timeout_s)
        self.layout.clear()


def start_embedded(
    settings: StackSettings, layout: StackLayout, progress: Progress, detach: bool
) -> StackState:
    """Start SeaweedFS (s3 storage only), Tansu and Temporal; return once all three really work."""
    s3 = settings.broker_storage == "s3"
    binaries = StackBinaries.resolve(settings.bin_dir, need_weed=s3)
    pg_bin = None
    if settings.sql == "postgres":
        pg_bin = (
            pg.checked_bin_dir(settings.postgres_bin_dir) if settings.postgres_bin_dir else pg.find_bin_dir()
        )
    chosen = choose_ports(settings, layout.last_ports())
    layout.ensure()
    creds = layout.s3_credentials() if s3 else None
    launcher = _Launcher(settings, layout, chosen, detach)
    deadline = time.monotonic() + settings.ready_timeout_s
    try:
        progress("starting SeaweedFS and Temporal" if s3 else "starting Temporal")
        weed = None
        if binaries.weed is not None and creds is not None:
            weed = launcher.launch(components.seaweedfs(binaries.weed, layout, chosen, creds))
        temporal = launcher.launch(
            components.temporal(binaries.temporal, layout, chosen, ui=settings.temporal_ui)
        )
        postgres = _launch_postgres(launcher, pg_bin, layout, chosen, progress)
        cancel = threading.Event()  # ends the Temporal wait early when the broker side fails
        with ThreadPoolExecutor(max_workers=1) as pool:
            address = launcher.state.endpoints.temporal_address
            temporal_ready = pool.submit(
                _wait,
                "Temporal",
                lambda: readiness.temporal_healthy(address, 2.0, binary=binaries.temporal),
                [temporal],
                deadline,
                cancel,
            )
            try:
                _start_broker(launcher, binaries, creds, weed, deadline, progress)
            except BaseException:
                cancel.set()
                raise
            progress("waiting for Temporal's health check")
            temporal_ready.result()
        if postgres is not None:
            progress("waiting for Postgres")
            _wait("Postgres", lambda: pgdata.ready(chosen.postgres), [postgres], deadline)
    except BaseException:
        launcher.stop_all(settings.stop_timeout_s)
        raise
    return launcher.state


def _launch_postgres(
    launcher: _Launcher, bin_dir: Path | None, layout: StackLayout, chosen: StackPorts, progress: Progress
) -> _Started | None:
    """Make the cluster on the first start (initdb) and spawn Postgres; None without `--sql postgres`."""
    if bin_dir is None:
        return None
    data = pgdata.data_dir(layout.data_dir)
    if not (data / "PG_VERSION").exists():
        progress("creating the Postgres cluster (initdb, first start only)")
    pgdata.prepare(bin_dir, data)
    return launcher.launch(components.postgres(bin_dir, data, chosen))


def _start_broker(
    launcher: _Launcher,
    binaries: StackBinaries,
    creds: S3Credentials | None,
    weed: _Started | None,
    deadline: float,
    progress: Progress,
) -> None:
    state = launcher.state
    assert state.ports is not None and state.broker_storage is not None
    chosen = state.ports
    watch = []
    if weed is not None:
        progress("waiting for SeaweedFS and the tansu bucket")
        bucket = components.BUCKET
        _wait(
            "SeaweedFS",
            lambda: None if readiness.bucket_exists(chosen.seaweed_filer, bucket) else "bucket not there yet",
            [weed],
            deadline,
        )
        watch.append(weed)
    progress("starting Tansu; waiting for a Kafka round trip")
    watch.append(launcher.launch(components.tansu(binaries.tansu, chosen, state.broker_storage, creds)))
    listening = readiness.accepts_connections
    _wait("Tansu", lambda: None if listening(chosen.kafka) else "not listening yet", watch, deadline)
    _wait("Tansu", lambda: _round_trip(kafka_settings(state), deadline), watch, deadline)
