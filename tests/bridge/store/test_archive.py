"""The archive contract, on SQLite and Postgres: idempotent appends, exact rebuilds, stored as received."""

from __future__ import annotations

import json
import random

import pytest
import sqlalchemy as sa

from bridge.store import ArchiveRecord, SqlEventArchive
from schemas import EpisodeChain, Event
from schemas.chain import hash_structured
from schemas.events import EdgeCaseDetected
from tests.bridge.store.builders import EpisodeBuilder, typical_episode
from tests.bridge.store.snapshot import projection_snapshot


def _records(events: list[Event]) -> list[ArchiveRecord]:
    return [ArchiveRecord.of(event) for event in events]


def _interleaved(n: int = 4) -> list[Event]:
    streams = [typical_episode(f"ep-{i}", item_id=f"CLM-{i}").events for i in range(n)]
    rng = random.Random(7)
    out: list[Event] = []
    while any(streams):
        stream = rng.choice([s for s in streams if s])
        out.append(stream.pop(0))
    return out


def test_appending_the_same_events_again_changes_nothing(archive: SqlEventArchive) -> None:
    events = typical_episode().events
    first = archive.append(_records(events))
    before = projection_snapshot(archive.engine)
    again = archive.append(_records(events))
    assert (first.inserted, first.duplicates) == (len(events), 0)
    assert (again.inserted, again.duplicates) == (0, len(events))
    assert projection_snapshot(archive.engine) == before
    assert archive.count() == len(events)


def test_an_event_repeated_within_one_batch_is_archived_and_projected_once(archive: SqlEventArchive) -> None:
    ep = EpisodeBuilder()
    ep.started()
    ep.responded(0)
    result = archive.append(_records([*ep.events, ep.events[1], ep.events[1]]))
    assert (result.inserted, result.duplicates) == (2, 2)
    assert archive.count() == 2
    with archive.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT steps FROM proj_episodes")).scalar_one() == 1


def test_a_typical_episode_projects_its_calls_outcomes_and_error_rates(archive: SqlEventArchive) -> None:
    archive.append(_records(typical_episode().events))
    with archive.engine.connect() as conn:
        episode = conn.execute(sa.text("SELECT * FROM proj_episodes")).mappings().one()
        calls = conn.execute(
            sa.text("SELECT tool, outcome, http_status FROM proj_tool_calls ORDER BY called_seq")
        ).all()
        rates = conn.execute(
            sa.text("SELECT tool, calls, failures, unknown FROM proj_tool_error_rates ORDER BY tool")
        ).all()
        outcomes = conn.execute(sa.text("SELECT kind, amount FROM proj_outcomes")).all()
    assert episode["status"] == "escalated"
    assert (episode["steps"], episode["tool_calls"], bool(episode["escalated"])) == (2, 2, True)
    assert (episode["work_item_id"], episode["latest_outcome"]) == ("CLM-1", "paid")
    assert [tuple(c) for c in calls] == [("get_claim", "ok", None), ("submit_appeal", "failed", 503)]
    assert [tuple(r) for r in rates] == [("get_claim", 1, 0, 0), ("submit_appeal", 1, 1, 0)]
    assert [tuple(o) for o in outcomes] == [("paid", "120.50")]


@pytest.mark.parametrize("batch_size", [1, 2, 5, 13])
def test_projections_do_not_depend_on_how_events_were_batched(
    archive: SqlEventArchive, batch_size: int
) -> None:
    events = _interleaved()
    archive.append(_records(events))
    whole = projection_snapshot(archive.engine)
    archive.rebuild(events, batch_size=batch_size)
    assert projection_snapshot(archive.engine) == whole


def test_rebuild_reproduces_the_projections_exactly(archive: SqlEventArchive) -> None:
    events = _interleaved()
    for i in range(0, len(events), 7):  # as a projector would: small batches
        archive.append(_records(events[i : i + 7]))
    streamed = projection_snapshot(archive.engine)
    result = archive.rebuild()
    assert (result.events, result.skipped) == (len(events), 0)
    assert projection_snapshot(archive.engine) == streamed
    archive.rebuild(events + events[:5])  # from another source, with redeliveries
    assert projection_snapshot(archive.engine) == streamed


def test_the_structured_json_is_kept_as_received_so_its_hash_verifies(archive: SqlEventArchive) -> None:
    ep = EpisodeBuilder()
    ep.call("note", {"text": "NUL \x00, emoji \U0001f600 and \u00e9", "n": 1.0, "big": 2**70})
    archive.append(_records(ep.events))
    (stored,) = list(archive.iter_structured())
    assert stored == ep.events[0].model_dump(mode="json")
    assert hash_structured(stored) == ep.events[0].hash


def test_stream_tip_resumes_a_chain_where_the_archive_ends(archive: SqlEventArchive) -> None:
    ep = typical_episode()
    archive.append(_records(ep.events))
    assert archive.stream_tip("ep-1") == (len(ep.events), ep.events[-1].hash)
    assert archive.stream_tip("ep-unknown") == (0, "0" * 64)


def _edge_case_event(chain: EpisodeChain, fingerprint: str = "f" * 32) -> Event:
    data = EdgeCaseDetected(
        fingerprint=fingerprint,
        rule="tool_failure.http_5xx",
        severity="medium",
        summary="submit_appeal 503",
        source_episode_id="ep-1",
        evidence={"status_code": 503},
    )
    return chain.append(data)


def test_edge_case_counts_follow_their_stream_and_a_fork_is_archived_but_not_counted(
    archive: SqlEventArchive,
) -> None:
    chain = EpisodeChain("edgecase:" + "f" * 32, tenant="acme", source="loopline://test/detect")
    first, second = _edge_case_event(chain), _edge_case_event(chain)
    fork_chain = EpisodeChain(
        chain.episode_id, tenant="acme", source="loopline://test/detect", next_seq=1, prevhash=first.hash
    )
    fork = _edge_case_event(fork_chain)
    assert archive.append(_records([first, second])).refused == ()
    result = archive.append(_records([fork]))
    assert result.inserted == 1 and len(result.refused) == 1
    with archive.engine.connect() as conn:
        row = conn.execute(sa.text("SELECT count, last_event_id, last_hash FROM proj_edge_cases")).one()
    assert tuple(row) == (2, second.id, second.hash)


def test_an_event_that_no_longer_decodes_is_skipped_by_rebuild(archive: SqlEventArchive) -> None:
    archive.append(_records(typical_episode().events))
    with archive.engine.begin() as conn:
        doc = json.loads(
            conn.execute(sa.text("SELECT structured FROM event_archive WHERE seq = 1")).scalar_one()
        )
        doc["data"]["turn"] = "not a number"
        conn.execute(
            sa.text("UPDATE event_archive SET structured = :s WHERE seq = 1"), {"s": json.dumps(doc)}
        )
    result = archive.rebuild()
    assert result.skipped == 1
