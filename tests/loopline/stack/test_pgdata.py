"""The stack's Postgres folder: made once, refused when half made or out of the server user's reach."""

from __future__ import annotations

import getpass
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from loopline.stack.pgdata import _blocked_ancestor, prepare
from loopline.stack.postgres import PostgresUnavailable, find_bin_dir
from loopline.stack.state import Endpoints, StackState, client_env


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (pytest's tmp_path is root-only under root)."""
    with tempfile.TemporaryDirectory(prefix="loopline-pgdata-") as folder:
        Path(folder).chmod(0o755)
        yield Path(folder)


def test_a_folder_without_the_search_bit_blocks_the_server_user(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    (closed / "data").mkdir(parents=True)
    closed.chmod(0o600)
    try:
        assert _blocked_ancestor(closed / "data" / "postgres", getpass.getuser()) == closed
    finally:
        closed.chmod(0o700)


def test_a_data_folder_with_files_but_no_cluster_is_refused(open_folder: Path) -> None:
    data = open_folder / "postgres"
    data.mkdir()
    (data / "stray").write_text("left over")
    with pytest.raises(PostgresUnavailable, match="holds files but no Postgres cluster"):
        prepare(find_bin_dir(), data)


def test_clients_read_the_archive_url_from_the_stack_env() -> None:
    endpoints = Endpoints(
        bootstrap_servers="127.0.0.1:1", temporal_address="127.0.0.1:2", sql_url="postgresql+psycopg://x/db"
    )
    env = client_env(StackState(mode="embedded", started_at=datetime.now(UTC), endpoints=endpoints))
    assert env["LOOPLINE_DB_URL"] == env["LOOPLINE_BRIDGE_DB_URL"] == "postgresql+psycopg://x/db"
    assert env["LOOPLINE_KAFKA_BOOTSTRAP_SERVERS"] == "127.0.0.1:1"


def test_without_postgres_the_stack_env_leaves_the_archive_url_alone() -> None:
    endpoints = Endpoints(bootstrap_servers="127.0.0.1:1", temporal_address="127.0.0.1:2")
    env = client_env(StackState(mode="embedded", started_at=datetime.now(UTC), endpoints=endpoints))
    assert "LOOPLINE_DB_URL" not in env
