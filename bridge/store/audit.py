"""Audit the archive: verify every stream's hash chain on the structured JSON as stored."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from bridge.store.archive import SqlEventArchive
from schemas.chain import ChainBreak, verify_chain


@dataclass(frozen=True)
class StreamBreak:
    """The first broken link of one stream."""

    stream: str
    """The stream (episode id, `edgecase:...`)."""
    link: ChainBreak
    """Which event, and what is wrong with it."""

    def __str__(self) -> str:
        return f"stream {self.stream}: {self.link}"


@dataclass(frozen=True)
class AuditReport:
    """What an audit checked and found."""

    streams: int
    events: int
    breaks: tuple[StreamBreak, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True when every chain is intact."""
        return not self.breaks


def audit_streams(
    rows: Iterable[tuple[str, dict[str, Any]]], *, progress: Callable[[int], None] | None = None
) -> AuditReport:
    """Verify `(stream, event)` pairs grouped by stream, each stream in `seq` order. Pure."""
    streams = events = 0
    breaks: list[StreamBreak] = []
    for stream, group in groupby(rows, key=lambda row: row[0]):
        docs = [doc for _, doc in group]
        streams += 1
        events += len(docs)
        link = verify_chain(docs)
        if link is not None:
            breaks.append(StreamBreak(stream, link))
        if progress:
            progress(len(docs))
    return AuditReport(streams, events, tuple(breaks))


def audit_archive(archive: SqlEventArchive, *, progress: Callable[[int], None] | None = None) -> AuditReport:
    """Verify every stream in the archive; a stream is held in memory one at a time."""
    return audit_streams(archive.iter_streams(), progress=progress)
