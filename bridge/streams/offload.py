"""Where an agent's batch work runs: a worker thread, or a child process. No faust here.

Decoding, hashing, validation and SQL are CPU-bound Python. In the worker's own process they
compete for the GIL with faust's per-message machinery (a few tasks per message), which halves
throughput; in a child process each gets a core. Batches still run one at a time per agent, and
the agent acks a batch only after its work returned, so delivery stays at-least-once. A database
outage pauses the agent (retry with backoff), a crashed child is replaced and the batch retried.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, cast

from bridge.detect import Rejected
from bridge.store import StoreError
from bridge.streams.config import StreamsConfig
from bridge.streams.deadletter import RawMessage
from bridge.streams.projector import ProjectedBatch, StoreUnavailable
from bridge.streams.work import DetectedBatch, StreamWork
from schemas.envelope import Event

log = logging.getLogger(__name__)
MAX_DELAY_S = 30.0


class WorkRunner:
    """Runs `StreamWork` methods off the event loop; subclasses say where."""

    async def _call(self, role: str, method: str, arg: Any) -> Any:
        raise NotImplementedError

    async def project(self, messages: list[RawMessage]) -> ProjectedBatch:
        """`StreamWork.project`, off the loop."""
        return cast(ProjectedBatch, await self._call("projector", "project", messages))

    async def detect(self, messages: list[RawMessage]) -> DetectedBatch:
        """`StreamWork.detect`, off the loop."""
        return cast(DetectedBatch, await self._call("detector", "detect", messages))

    async def detect_rejected(self, rejected: list[Rejected]) -> list[Event]:
        """`StreamWork.detect_rejected`, off the loop."""
        return cast(list[Event], await self._call("detector", "detect_rejected", rejected))

    async def record(self, reports: list[Event]) -> list[Event]:
        """`StreamWork.record`, off the loop (in the detector's process: its state lives there)."""
        return cast(list[Event], await self._call("detector", "record", reports))

    def close(self) -> None:
        """Release what the runner holds."""


async def _retrying(call: Callable[[], Any], what: str, on_broken: Callable[[], None] | None = None) -> Any:
    delay = 0.5
    while True:
        try:
            return await call()
        except (StoreUnavailable, StoreError):
            log.warning("%s: database unavailable; retrying in %.1f s", what, delay, exc_info=True)
        except BrokenProcessPool:
            log.error("%s: the work process died; starting a new one and retrying the batch", what)
            if on_broken is not None:
                on_broken()
        await asyncio.sleep(delay)
        delay = min(delay * 2, MAX_DELAY_S)


class ThreadRunner(WorkRunner):
    """Work in a thread of this process (tests, an injected archive, tiny deployments)."""

    def __init__(self, work: StreamWork) -> None:
        self.work = work

    async def _call(self, role: str, method: str, arg: Any) -> Any:
        return await _retrying(lambda: asyncio.to_thread(getattr(self.work, method), arg), method)

    def close(self) -> None:
        if self.work.checkpoints is not None:
            self.work.checkpoints.close()
        self.work.projector.archive.engine.dispose()


_WORK: StreamWork | None = None


def _init_child(config_json: str, parent_pid: int) -> None:
    global _WORK
    _WORK = StreamWork.from_config(StreamsConfig.model_validate_json(config_json))
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _exit_with_parent(parent_pid: int) -> None:
    # A worker killed with SIGKILL cannot stop its pool; its children notice and leave, mid-batch
    # or not: nothing was acked for a batch in flight, so it is consumed again.
    while os.getppid() == parent_pid:
        time.sleep(1.0)
    os._exit(1)


def _child_call(method: str, arg: Any) -> Any:
    assert _WORK is not None, "the work process was not initialised"
    return getattr(_WORK, method)(arg)


class ProcessRunner(WorkRunner):
    """Work in child processes: one for the projector, one for the detectors (their state lives there)."""

    def __init__(self, config: StreamsConfig) -> None:
        self._config_json = config.model_dump_json()
        self._pools: dict[str, ProcessPoolExecutor] = {}

    def _pool(self, role: str) -> ProcessPoolExecutor:
        if role not in self._pools:
            # spawn, not fork: the worker process runs threads (the consumer) that fork would copy mid-flight
            self._pools[role] = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_child,
                initargs=(self._config_json, os.getpid()),
            )
        return self._pools[role]

    def _replace(self, role: str) -> None:
        pool = self._pools.pop(role, None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def _call(self, role: str, method: str, arg: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await _retrying(
            lambda: loop.run_in_executor(self._pool(role), _child_call, method, arg),
            method,
            lambda: self._replace(role),
        )

    def close(self) -> None:
        for role in list(self._pools):
            self._replace(role)
