"""What a world store writes: the words of every write statement an engine runs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine


def record_writes(engine: Engine) -> list[list[str]]:
    """The words of every INSERT, DELETE and UPDATE `engine` runs from now on, in order."""
    writes: list[list[str]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        words = statement.split()
        if words[0] in ("INSERT", "DELETE", "UPDATE"):
            writes.append(words)

    return writes
