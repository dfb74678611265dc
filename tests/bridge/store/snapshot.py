"""Every projection row, normalised, so two databases can be compared for equality."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from bridge.store.tables import PROJECTION_TABLES


def _norm(value: Any) -> Any:
    # SQLite hands back naive UTC datetimes, Postgres aware ones: compare them as UTC.
    if isinstance(value, datetime):
        return (value if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)).isoformat()
    return value


def projection_snapshot(engine: sa.Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Table name → sorted rows of normalised values."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in PROJECTION_TABLES:
            rows = conn.execute(sa.select(table)).all()
            out[table.name] = sorted((tuple(_norm(v) for v in row) for row in rows), key=repr)
    return out
