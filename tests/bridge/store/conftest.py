"""Fixtures of the store tests: an archive on every SQL engine `sql_url` names (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bridge.store import SqlEpisodeReader, SqlEventArchive


@pytest.fixture
def archive(sql_url: str) -> Iterator[SqlEventArchive]:
    """A fresh archive with its tables, on SQLite and on Postgres."""
    store = SqlEventArchive(sql_url)
    store.create_schema()
    yield store
    store.engine.dispose()


@pytest.fixture
def reader(archive: SqlEventArchive) -> SqlEpisodeReader:
    """The read API over the same database."""
    return SqlEpisodeReader(archive.engine)
