"""What each named producer may write: its event types and the streams they go to.

A key proves which producer (CloudEvents `source`) wrote an event; the scope says what that producer
may write at all. The table is data (`producer_scopes.json`, shipped with the package): per role, the
source patterns it signs as, the event types it writes (glob patterns over `type`) and a regular
expression its stream ids match. The first entry whose source pattern matches decides; a source no
entry names writes nothing. So the promotion workflow's key can sign `task.promoted` on `task:...`
streams and nothing else: an episode it fabricates is refused as `out_of_scope`, whether the
stream is new or one it started before scopes were enforced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from importlib.resources import files
from typing import Any

from bridge.audit.event_keys import EventKeyError, Refusal

OUT_OF_SCOPE = "out_of_scope"


@dataclass(frozen=True)
class ProducerScope:
    """One role's row of the table."""

    role: str
    sources: tuple[str, ...]
    """Glob patterns of the sources the role signs as."""
    types: tuple[str, ...]
    """Glob patterns of the event types it may write."""
    stream: re.Pattern[str]
    """What its stream ids (`episodeid`) look like."""

    def speaks_for(self, source: str) -> bool:
        return any(fnmatchcase(source, pattern) for pattern in self.sources)

    def writes(self, event_type: str) -> bool:
        return any(fnmatchcase(event_type, pattern) for pattern in self.types)


class Scopes:
    """The table, in order; `check` is admission's question."""

    def __init__(self, rows: tuple[ProducerScope, ...]) -> None:
        self.rows = rows

    def role_of(self, source: str) -> ProducerScope | None:
        """The row that decides for `source` (the first that matches), or None."""
        return next((row for row in self.rows if row.speaks_for(source)), None)

    def roles(self) -> tuple[str, ...]:
        return tuple(row.role for row in self.rows)

    def check(self, structured: Mapping[str, Any]) -> Refusal | None:
        """None when the event's source may write its type on its stream; else `out_of_scope`."""
        source, event_type = str(structured.get("source", "")), str(structured.get("type", ""))
        stream = str(structured.get("episodeid", ""))
        row = self.role_of(source)
        if row is None:
            return Refusal(OUT_OF_SCOPE, f"source {source[:128]!r} is no named producer's")
        if not row.writes(event_type):
            return Refusal(OUT_OF_SCOPE, f"the {row.role} ({source}) may not write {event_type[:128]!r}")
        if row.stream.fullmatch(stream) is None:
            return Refusal(
                OUT_OF_SCOPE, f"the {row.role} ({source}) may not write into stream {stream[:128]!r}"
            )
        return None

    @classmethod
    def from_json(cls, text: str, *, where: str = "producer scopes") -> Scopes:
        try:
            rows = tuple(
                ProducerScope(
                    role=str(row["role"]),
                    sources=tuple(str(s) for s in row["sources"]),
                    types=tuple(str(t) for t in row["types"]),
                    stream=re.compile(str(row["stream"])),
                )
                for row in json.loads(text)["producers"]
            )
        except (ValueError, KeyError, TypeError, re.error) as exc:
            raise EventKeyError(f"{where}: not a scope table ({{'producers': [...]}}): {exc}") from None
        if len({row.role for row in rows}) != len(rows):
            raise EventKeyError(f"{where}: a role is listed twice")
        return cls(rows)


def default_scopes() -> Scopes:
    """The table shipped with the package."""
    text = files("bridge.audit").joinpath("producer_scopes.json").read_text()
    return Scopes.from_json(text, where="bridge/audit/producer_scopes.json")


SCOPES = default_scopes()
"""The shipped table, read once at import."""
