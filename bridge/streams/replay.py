"""`loopline replay`'s work: refill the archive from a topic, then rebuild the projections. No faust.

From a topic, events are archived without projecting (idempotent on (source, id), so the archive
only gains what it lacked), then every projection is rebuilt from the archive in stream order. Two
passes, but the second is local SQL, and the projections always equal a rebuild of the archive.
Messages that do not decode are counted, not dead-lettered again: the projector already did that.
With an `Admission`, the events the stream worker would refuse (not MACed by a named producer, not
the next event of their stream) are counted as refused and not archived either: a replay from the
topic lets in nothing the worker kept out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice

from bridge.audit.event_keys import mac_of
from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.streams.admission import Admission
from bridge.streams.deadletter import RawMessage
from bridge.streams.decode import Decoded, decode_message


@dataclass(frozen=True)
class ImportResult:
    """What importing a topic into the archive did."""

    messages: int
    archived: int
    """Events the archive did not have yet."""
    undecodable: int
    refused: int = 0
    """Events the admission check refused (see `bridge.streams.admission`)."""


def import_topic(
    archive: SqlEventArchive,
    messages: Iterable[RawMessage],
    *,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
    admission: Admission | None = None,
) -> ImportResult:
    """Archive every valid (and, with `admission`, admitted) event of `messages` that the archive
    lacks; projections untouched."""
    seen = archived = undecodable = refused = 0
    it = iter(messages)
    while batch := list(islice(it, batch_size)):
        decoded: list[tuple[Decoded, RawMessage]] = []
        for m in batch:
            out = decode_message(m.value, m.headers)
            if isinstance(out, Decoded):
                decoded.append((out, m))
            else:
                undecodable += 1
        if admission is not None:
            admitted = admission.admit(decoded)
            decoded, refused = admitted.accepted, refused + len(admitted.refused)
        records = [
            ArchiveRecord(d.event, d.structured, m.topic, m.partition, m.offset, mac_of(m.headers))
            for d, m in decoded
        ]
        archived += archive.append(records, project=False).inserted
        seen += len(batch)
        if progress:
            progress(len(batch))
    return ImportResult(seen, archived, undecodable, refused)
