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
    keyring = producer_keyring(("loopline://test/runtime", "loopline://workflows/promotion"))
    projector = Projector(archive, keyring=keyring)
    events = typical_episode().events
    projector.handle([message(e, i, signed=True) for i, e in enumerate(events[:5])])
    intruder = EpisodeChain(
        "ep-1", tenant="acme", source="loopline://workflows/promotion", next_seq=5, prevhash=events[4].hash
    ).append(events[5].data)
    result = projector.handle([message(intruder, 9, signed=True)])
    assert _codes(result) == ["foreign_source"] and archive.count() == 5
    assert "is written by 'loopline://test/runtime'" in as_mapping(result.dead_letters[0])["reason"]


def test_without_a_keyring_only_continuity_is_checked(archive: SqlEventArchive) -> None:
    result = Projector(archive).handle([message(e, i) for i, e in enumerate(typical_episode().events)])
    assert (result.appended.inserted, _codes(result)) == (10, [])
