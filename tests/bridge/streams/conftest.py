"""Fixtures of the streams tests: an archive on every engine `sql_url` names (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bridge.store import SqlEventArchive


@pytest.fixture
def archive(sql_url: str) -> Iterator[SqlEventArchive]:
    """A fresh archive with its tables."""
    store = SqlEventArchive(sql_url)
    store.create_schema()
    yield store
    store.engine.dispose()
