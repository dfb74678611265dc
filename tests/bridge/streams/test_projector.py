"""The projector's batch work: archive + project the valid, dead-letter the rest, never stop."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from bridge.store import SqlEventArchive
from bridge.streams.deadletter import RawMessage, as_mapping
from bridge.streams.projector import Projector, StoreUnavailable
from tests.bridge.store.builders import typical_episode
from tests.bridge.store.snapshot import projection_snapshot
from tests.bridge.streams.messages import TOPIC, hostile, message


def test_a_mixed_batch_archives_the_valid_events_and_dead_letters_each_bad_message(
    archive: SqlEventArchive,
) -> None:
    events = typical_episode().events
    bad = hostile(events[1])
    batch = [message(e, i) for i, e in enumerate(events)]
    batch += [
        RawMessage(TOPIC, 0, 100 + i, b"k", value, headers) for i, (value, headers) in enumerate(bad.values())
    ]
    result = Projector(archive).handle(batch)
    assert result.appended.inserted == len(events)
    assert [as_mapping(d)["reason_code"] for d in result.dead_letters] == list(bad)
    assert [as_mapping(d)["offset"] for d in result.dead_letters] == [str(100 + i) for i in range(len(bad))]
    with archive.engine.connect() as conn:
        stored = conn.execute(
            sa.text("SELECT kafka_topic, kafka_partition, kafka_offset FROM event_archive WHERE seq = 3")
        ).one()
    assert tuple(stored) == (TOPIC, 0, 3)


def test_a_redelivered_batch_changes_nothing(archive: SqlEventArchive) -> None:
    batch = [message(e, i) for i, e in enumerate(typical_episode().events)]
    projector = Projector(archive)
    projector.handle(batch)
    before = projection_snapshot(archive.engine)
    again = projector.handle(batch[3:] + batch[:3])
    assert (again.appended.inserted, again.appended.duplicates) == (0, len(batch))
    assert projection_snapshot(archive.engine) == before


def test_an_event_the_database_refuses_is_dead_lettered_and_the_rest_archived(
    archive: SqlEventArchive,
) -> None:
    events = typical_episode().events
    with archive.engine.begin() as conn:  # a constraint this one event breaks, as a stand-in for any poison
        conn.execute(sa.text("CREATE UNIQUE INDEX poison ON event_archive (seq, tenant)"))
    refused = typical_episode("ep-other").events[0]
    result = Projector(archive).handle([message(e, i) for i, e in enumerate(events)] + [message(refused, 99)])
    assert result.appended.inserted == len(events)
    (letter,) = result.dead_letters
    assert as_mapping(letter)["reason_code"] == "store_failed" and as_mapping(letter)["offset"] == "99"


def test_a_database_outage_stops_the_batch_instead_of_dead_lettering_it() -> None:
    broken = SqlEventArchive("sqlite:////nonexistent-dir/archive.db")
    with pytest.raises(StoreUnavailable):
        Projector(broken).handle([message(typical_episode().events[0])])
