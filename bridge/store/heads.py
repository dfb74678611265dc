"""What the stream worker's admission check reads from the archive: ids already archived and the
head of each stream, for a whole batch in two queries (`bridge.streams.admission`)."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bridge.store.tables import ARCHIVE_TABLE

A = ARCHIVE_TABLE
_CHUNK = 500  # bound parameters per IN list, well under every engine's limit


def archived_hashes(engine: Engine, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(source, event id) → stored hash, for the keys already in the archive."""
    wanted = sorted(set(keys))
    found: dict[tuple[str, str], str] = {}
    with engine.connect() as conn:
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            query = sa.select(A.c.source, A.c.event_id, A.c.hash).where(
                A.c.source.in_({s for s, _ in chunk}), A.c.event_id.in_([i for _, i in chunk])
            )
            for row in conn.execute(query):
                if (row.source, row.event_id) in chunk:
                    found[(row.source, row.event_id)] = row.hash
    return found


def stream_heads(engine: Engine, streams: Iterable[str]) -> dict[str, tuple[int, str, str]]:
    """stream → (last seq, its hash, its source), for the streams that have archived events."""
    wanted = sorted(set(streams))
    heads: dict[str, tuple[int, str, str]] = {}
    with engine.connect() as conn:
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            top = (
                sa.select(A.c.episodeid, sa.func.max(A.c.seq).label("seq"))
                .where(A.c.episodeid.in_(chunk))
                .group_by(A.c.episodeid)
                .subquery()
            )
            query = sa.select(A.c.episodeid, A.c.seq, A.c.hash, A.c.source).join(
                top, sa.and_(A.c.episodeid == top.c.episodeid, A.c.seq == top.c.seq)
            )
            for row in conn.execute(query):
                heads[row.episodeid] = (int(row.seq), str(row.hash), str(row.source))
    return heads
