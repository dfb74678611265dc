"""The admission check before archiving: MACs by named producers, and each stream's next event only."""

from __future__ import annotations

from bridge.store import SqlEventArchive
from bridge.streams.deadletter import as_mapping
from bridge.streams.projector import Projector
from schemas import EpisodeChain
from schemas.chain import hash_event
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import producer_keyring
from tests.bridge.streams.messages import message


def _codes(result: object) -> list[str]:
    return [as_mapping(letter)["reason_code"] for letter in result.dead_letters]  # type: ignore[attr-defined]


def test_a_whole_episode_in_one_batch_is_accepted_and_its_redelivery_changes_nothing(
    archive: SqlEventArchive,
) -> None:
    projector = Projector(archive, keyring=producer_keyring())
    batch = [message(e, i, signed=True) for i, e in enumerate(typical_episode().events)]
    first = projector.handle(batch)
    again = projector.handle(batch)
    assert (first.appended.inserted, _codes(first)) == (len(batch), [])
    assert (again.appended.inserted, again.appended.duplicates, _codes(again)) == (0, len(batch), [])


def test_events_that_do_not_continue_their_stream_are_dead_lettered_with_the_reason(
    archive: SqlEventArchive,
) -> None:
    projector = Projector(archive, keyring=producer_keyring())
    events = typical_episode().events
    projector.handle([message(e, i, signed=True) for i, e in enumerate(events[:5])])
    source, head = events[0].source, events[4]
    taken = EpisodeChain("ep-1", tenant="acme", source=source, next_seq=2, prevhash=events[1].hash)
    gap = EpisodeChain("ep-1", tenant="acme", source=source, next_seq=6, prevhash=head.hash)
    fork = EpisodeChain("ep-1", tenant="acme", source=source, next_seq=5, prevhash=events[3].hash)
    late = EpisodeChain("ep-2", tenant="acme", source=source, next_seq=3, prevhash=head.hash)
    same_id = events[2].model_copy(update={"subject": "edited"})
    bad = [
        taken.append(events[2].data), gap.append(events[5].data), fork.append(events[5].data),
        late.append(events[5].data),
    ]  # fmt: skip
    result = projector.handle([message(e, 10 + i, signed=True) for i, e in enumerate(bad)])
    assert _codes(result) == ["seq_taken", "seq_gap", "prevhash_mismatch", "seq_gap"]
    assert result.appended.inserted == 0 and archive.count() == 5
    rehashed = same_id.model_copy(update={"hash": hash_event(same_id)})
    assert _codes(projector.handle([message(rehashed, 20, signed=True)])) == ["id_taken"]
    rest = projector.handle([message(e, 30 + i, signed=True) for i, e in enumerate(events[5:])])
    assert (rest.appended.inserted, _codes(rest)) == (5, [])


def test_one_named_producer_cannot_write_into_another_producers_stream(archive: SqlEventArchive) -> None:
    keyring = producer_keyring(("loopline://bridge/test", "loopline://bridge/other"))
    projector = Projector(archive, keyring=keyring)
    events = typical_episode().events
    projector.handle([message(e, i, signed=True) for i, e in enumerate(events[:5])])
    intruder = EpisodeChain(
        "ep-1", tenant="acme", source="loopline://bridge/other", next_seq=5, prevhash=events[4].hash
    ).append(events[5].data)
    result = projector.handle([message(intruder, 9, signed=True)])
    assert _codes(result) == ["foreign_source"] and archive.count() == 5
    assert "is written by 'loopline://bridge/test'" in as_mapping(result.dead_letters[0])["reason"]


NON_BRIDGE = ("loopline://bridge/detect", "loopline://workflows/promotion", "loopline://training/release")


def test_an_episode_fabricated_under_any_non_bridge_key_is_out_of_scope(archive: SqlEventArchive) -> None:
    projector = Projector(archive, keyring=producer_keyring(("loopline://bridge/test", *NON_BRIDGE)))
    real = typical_episode("ep-real").events
    for n, source in enumerate(NON_BRIDGE):
        chain = EpisodeChain(f"ep-fake-{n}", tenant="acme", source=source)
        fake = [chain.append(e.data) for e in real]  # a whole, well-chained, validly signed episode
        result = projector.handle([message(e, 100 * n + i, signed=True) for i, e in enumerate(fake)])
        assert _codes(result) == ["out_of_scope"] * len(fake), source
        assert "may not write 'loopline.episode.started.v2'" in as_mapping(result.dead_letters[0])["reason"]
    assert archive.count() == 0
    # The detector's own type, but on a stream that is not an edge case's: out of scope too.
    detector = EpisodeChain("task:T-1", tenant="acme", source="loopline://bridge/detect")
    case = typical_episode("ep-x").outcome("paid")  # any data: the type decides first
    assert _codes(projector.handle([message(detector.append(case.data), 900, signed=True)])) == [
        "out_of_scope"
    ]
    ok = projector.handle([message(e, 1000 + i, signed=True) for i, e in enumerate(real)])
    assert (ok.appended.inserted, _codes(ok)) == (len(real), [])


def test_a_stream_archived_before_scopes_cannot_be_continued_by_its_out_of_scope_writer(
    archive: SqlEventArchive,
) -> None:
    from bridge.store import ArchiveRecord

    real = typical_episode("ep-old").events
    chain = EpisodeChain("ep-old", tenant="acme", source="loopline://workflows/promotion")
    old = [chain.append(e.data) for e in real]
    archive.append([ArchiveRecord.of(e) for e in old[:4]])  # archived when any key could mint a stream
    projector = Projector(archive, keyring=producer_keyring(("loopline://workflows/promotion",)))
    result = projector.handle([message(e, i, signed=True) for i, e in enumerate(old[4:])])
    assert _codes(result) == ["out_of_scope"] * len(old[4:]) and archive.count() == 4


def test_without_a_keyring_only_continuity_is_checked(archive: SqlEventArchive) -> None:
    result = Projector(archive).handle([message(e, i) for i, e in enumerate(typical_episode().events)])
    assert (result.appended.inserted, _codes(result)) == (10, [])
