"""Run the streaming app as a worker process (what `loopline streams worker` calls)."""

from __future__ import annotations

import faust

from bridge.store import SqlEventArchive
from bridge.streams.app import make_app
from bridge.streams.config import StreamsConfig
from bridge.streams.metrics import serve_metrics, streams_registry


def run_worker(config: StreamsConfig, *, loglevel: str = "info") -> None:
    """Create the archive tables, then run the agents until SIGINT/SIGTERM (blocks)."""
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()
    archive.engine.dispose()  # the agents' work opens its own connections (in child processes)
    if config.metrics_port is not None:
        serve_metrics(streams_registry(config, archive.engine), config.metrics_port, config.web_bind)
    worker = faust.Worker(make_app(config), loglevel=loglevel, quiet=True)
    worker.execute_from_commandline()
