"""Serving the bridge until SIGTERM or SIGINT, then draining it.

Both signals (what Kubernetes, systemd and Ctrl-C send) mean the same: stop taking work, let the
running episodes finish up to a deadline, close what is still open with a record, flush the relay.
uvicorn's own handling re-raises a SIGTERM after it stops serving, which kills the process before
any clean-up runs; `SignalledServer` keeps the signal instead and hands control back to `drain`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from concurrent.futures import Executor, wait
from dataclasses import dataclass
from typing import Any

import uvicorn

from bridge.capture import CaptureService
from bridge.recording import CaptureUnavailable

_log = logging.getLogger(__name__)


class SignalledServer(uvicorn.Server):
    """A uvicorn server that stops on SIGTERM or SIGINT and returns instead of re-raising them."""

    signals: list[int]

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        self.signals = []
        with super().capture_signals():
            try:
                yield
            finally:
                self.signals = list(self._captured_signals)
                self._captured_signals.clear()  # stopped by us: nothing to re-raise


def serve_until_signalled(app: Any, host: str, port: int, *, grace_s: float) -> list[int]:
    """Serve `app` until SIGTERM or SIGINT; in-flight requests get `grace_s` to finish. The signals
    received."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=max(1, int(grace_s)),
    )
    server = SignalledServer(config)
    server.run()
    return server.signals


@dataclass(frozen=True)
class DrainReport:
    """How a drain went."""

    finished: int
    """Episodes run through `POST /v1/episodes` that ended within the deadline."""
    interrupted: tuple[str, ...]
    """Episodes closed with `episode.interrupted` (still running at the deadline, or open before)."""
    sessions_closed: int
    """Gateway episodes closed as `aborted` (their external agent had not closed them)."""
    delivered: bool
    """Whether the relay delivered every event before the capture closed."""


def drain(app: Any, capture: CaptureService, executor: Executor, *, deadline_s: float) -> DrainReport:
    """Stop taking work (the API answers 503), wait up to `deadline_s` for running episodes, close
    open gateway episodes as `aborted`, refuse recorders, close what is still open with
    `episode.interrupted`, flush the relay and close the capture."""
    app.state.draining = True
    running = app.state.runs.running()
    executor.shutdown(wait=False, cancel_futures=True)  # queued runs never started: nothing recorded
    done, _late = wait(running, timeout=deadline_s)
    try:
        sessions = app.state.sessions.close_all("the bridge shut down while this gateway episode was open")
    except CaptureUnavailable as exc:  # what is left open is closed as interrupted below
        _log.warning("gateway episodes could not be closed cleanly: %s", exc)
        sessions = 0
    capture.stop_taking_events("the bridge is shutting down and its drain deadline passed")
    interrupted = capture.close_interrupted("cut off by the bridge's shutdown after its drain deadline")
    delivered = capture.close(timeout=max(1.0, deadline_s))
    return DrainReport(
        finished=sum(1 for run in done if not run.cancelled()),
        interrupted=tuple(event.episodeid for event in interrupted),
        sessions_closed=sessions,
        delivered=delivered,
    )
