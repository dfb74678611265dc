"""`audit_archive` verifies every stream's hash chain as stored and names the first broken link."""

from __future__ import annotations

import json

import sqlalchemy as sa

from bridge.store import ArchiveRecord, SqlEventArchive, audit_archive
from tests.bridge.store.builders import typical_episode


def test_an_untouched_archive_passes_the_audit(archive: SqlEventArchive) -> None:
    archive.append([ArchiveRecord.of(e) for i in range(3) for e in typical_episode(f"ep-{i}").events])
    report = audit_archive(archive)
    assert report.ok and (report.streams, report.events) == (3, 30)


def test_editing_one_archived_event_is_caught_and_named(archive: SqlEventArchive) -> None:
    episodes = [typical_episode(f"ep-{i}") for i in range(3)]
    archive.append([ArchiveRecord.of(e) for ep in episodes for e in ep.events])
    target = episodes[2].events[4]  # the 503 the agent got: someone makes it look like a success
    with archive.engine.begin() as conn:
        stored = conn.execute(
            sa.text("SELECT structured FROM event_archive WHERE event_id = :id"), {"id": target.id}
        )
        doc = json.loads(stored.scalar_one())
        doc["data"]["name"] = "get_claim"
        conn.execute(
            sa.text("UPDATE event_archive SET structured = :s WHERE event_id = :id"),
            {"s": json.dumps(doc), "id": target.id},
        )
    report = audit_archive(archive)
    (broken,) = report.breaks
    assert broken.stream == "ep-2" and broken.link.event_id == target.id and broken.link.seq == 4
    assert "edited" in str(broken)


def test_a_deleted_event_is_caught_as_a_gap(archive: SqlEventArchive) -> None:
    ep = typical_episode("ep-1")
    archive.append([ArchiveRecord.of(e) for e in ep.events])
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM event_archive WHERE event_id = :id"), {"id": ep.events[3].id})
    (broken,) = audit_archive(archive).breaks
    assert broken.link.seq == 4 and "gap" in broken.link.reason
