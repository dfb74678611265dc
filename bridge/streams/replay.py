"""`loopline replay`'s work: refill the archive from a topic, then rebuild the projections. No faust.

From a topic, events are archived without projecting (idempotent on (source, id), so the archive
only gains what it lacked), then every projection is rebuilt from the archive in stream order. Two
passes, but the second is local SQL, and the projections always equal a rebuild of the archive.
Messages that do not decode are counted, not dead-lettered again: the projector already did that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.streams.deadletter import RawMessage
from bridge.streams.decode import Decoded, decode_message


@dataclass(frozen=True)
class ImportResult:
    """What importing a topic into the archive did."""

    messages: int
    archived: int
    """Events the archive did not have yet."""
    undecodable: int


def import_topic(
    archive: SqlEventArchive,
    messages: Iterable[RawMessage],
    *,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> ImportResult:
    """Archive every valid event of `messages` that the archive lacks; projections untouched."""
    seen = archived = undecodable = 0
    it = iter(messages)
    while batch := list(islice(it, batch_size)):
        records: list[ArchiveRecord] = []
        for m in batch:
            out = decode_message(m.value, m.headers)
            if isinstance(out, Decoded):
                records.append(ArchiveRecord(out.event, out.structured, m.topic, m.partition, m.offset))
            else:
                undecodable += 1
        archived += archive.append(records, project=False).inserted
        seen += len(batch)
        if progress:
            progress(len(batch))
    return ImportResult(seen, archived, undecodable)
