"""Review sessions: the same assertions on the in-memory store and on the archive's database
(SQLite and Postgres), and sessions that outlive the process that started them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.api.auth import Caller, Role
from bridge.api.review_sessions import InMemorySessionStore, ReviewSessions, SessionStore, id_hash
from bridge.store import SqlEventArchive
from bridge.store.review_sessions import SESSIONS, SqlSessionStore

DANA = Caller(Role.REVIEWER, "tok-1a2b", "Dana Whitfield")


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    if request.param == "memory":
        yield InMemorySessionStore()
        return
    url = (
        f"sqlite:///{tmp_path / 'store.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    sql = SqlSessionStore(str(url))
    sql.create_schema()
    yield sql
    sql.engine.dispose()


def test_a_session_is_found_by_its_id_as_signed_in_until_it_ends(store: SessionStore) -> None:
    now = [1_000.0]
    sessions = ReviewSessions(ttl_s=60, clock=lambda: now[0], store=store)
    started = sessions.start(DANA)
    found = sessions.get(started.id)
    assert (
        found == started and found.caller.identity == "Dana Whitfield" and found.caller.role is Role.REVIEWER
    )
    assert sessions.get("not-a-session") is None and sessions.get(None) is None
    now[0] += 61
    assert sessions.get(started.id) is None and store.get(id_hash(started.id)) is None  # expired: forgotten


def test_a_signed_out_session_is_refused_and_others_stay(store: SessionStore) -> None:
    sessions = ReviewSessions(store=store)
    one, two = sessions.start(DANA), sessions.start(DANA)
    sessions.end(one.id)
    assert sessions.get(one.id) is None and sessions.get(two.id) == two


def test_starting_a_session_forgets_the_ended_ones(store: SessionStore) -> None:
    now = [1_000.0]
    sessions = ReviewSessions(ttl_s=10, clock=lambda: now[0], store=store)
    old = sessions.start(DANA)
    now[0] += 11
    sessions.start(DANA)
    assert store.get(id_hash(old.id)) is None


def test_a_session_outlives_its_process_and_the_table_holds_no_cookie(archive: SqlEventArchive) -> None:
    first = SqlSessionStore(archive.engine)
    first.create_schema()
    started = ReviewSessions(store=first).start(DANA)
    # Another process (a restarted bridge, another pod) on the same database.
    again = ReviewSessions(store=SqlSessionStore(SqlEventArchive(str(archive.engine.url)).engine))
    assert again.get(started.id) == started
    with archive.engine.connect() as conn:
        rows = [dict(r) for r in conn.execute(SESSIONS.select()).mappings()]
    assert [r["id_hash"] for r in rows] == [id_hash(started.id)]
    assert all(started.id not in str(value) for row in rows for value in row.values())
