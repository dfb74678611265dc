"""Only named producers write accepted events: a real worker against the real broker refuses forged,
foreign, unsigned and out-of-order events into the dead-letter topic, and the archive is unchanged."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bridge.audit.event_keys import EventKey, EventKeyError, Keyring, add_key, load_keyring
from bridge.store import SqlEpisodeReader, SqlEventArchive, audit_archive
from bridge.store.audit import audit_macs
from bridge.streams.deadletter import DeadLetter, as_mapping
from bridge.streams.topic_reader import read_topic
from schemas import EpisodeChain, Event, to_kafka
from schemas.codec import to_structured
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import WorkerProcess, produce, producer_key, wait_until

pytestmark = pytest.mark.integration
Raw = tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[tuple[str, SqlEventArchive]]:
    url = f"sqlite:///{tmp_path}/archive.db"
    store = SqlEventArchive(url)
    store.create_schema()
    yield url, store
    store.engine.dispose()


def _raw(event: Event, key: EventKey | None) -> Raw:
    record = to_kafka(event)
    mac = [] if key is None else key.headers_for(to_structured(event))
    return record.key, record.value, [*record.headers, *mac]


def test_forged_foreign_unsigned_and_out_of_order_events_are_dead_lettered_and_never_archived(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    archive: tuple[str, SqlEventArchive],
    tmp_path: Path,
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    url, store = archive
    make_topic(unique_topic, partitions=1)  # one partition: "after" means after
    make_topic(dlq, partitions=1)
    real = typical_episode("ep-real")
    source = real.events[0].source
    bridge_key = producer_key(source)

    # A well-formed `outcome.observed` of $999,999 "paid", chained right after the real episode, with
    # a MAC under the bridge's key id made with a key the attacker guessed.
    forged = real.outcome("paid", amount="999999.00")
    guessed = EventKey(bridge_key.key_id, source, b"a secret the attacker guessed!!!")
    # An event at a taken seq, MACed with the real key (a replay, or a producer that forked).
    third = real.events[3]
    taken = EpisodeChain(
        "ep-real", tenant="acme", source=source, next_seq=third.seq, prevhash=real.events[2].hash
    ).append(third.data)
    # One from a foreign source, MACed with the bridge's key; one under a key id nobody issued.
    foreign = EpisodeChain("ep-foreign", tenant="acme", source="loopline://attacker").append(
        real.events[0].data
    )
    unknown = EpisodeChain("ep-unknown", tenant="acme", source=source).append(real.events[0].data)
    stranger = EventKey("k-nobody", source, b"0123456789abcdef0123456789abcdef")
    # A well-formed next event with no MAC at all; and one that skips a seq.
    unsigned = EpisodeChain(
        "ep-real", tenant="acme", source=source, next_seq=forged.seq, prevhash=forged.prevhash
    ).append(real.events[-1].data)
    gap = EpisodeChain(
        "ep-real", tenant="acme", source=source, next_seq=forged.seq + 1, prevhash=forged.prevhash
    ).append(real.events[-1].data)
    attacks = {
        "bad_mac": _raw(forged, guessed),
        "seq_taken": _raw(taken, bridge_key),
        "foreign_source": _raw(foreign, bridge_key),
        "unknown_key": _raw(unknown, stranger),
        "unsigned": _raw(unsigned, None),
        "seq_gap": _raw(gap, bridge_key),
    }
    after = typical_episode("ep-after")
    produce(bootstrap, unique_topic, real.events[:-1])  # every real event (not the forged one)
    produce(bootstrap, unique_topic, raw=list(attacks.values()))
    produce(bootstrap, unique_topic, after.events)

    worker = WorkerProcess(bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic)
    reader = SqlEpisodeReader(store.engine)
    try:
        wait_until(
            lambda: (d := reader.get_episode("ep-after")) is not None and d.episode.latest_outcome == "paid",
            "ep-after",
            worker,
        )
        wait_until(
            lambda: len(reader.list_edge_cases(rule="schema_violation.dead_letter")) >= len(attacks),
            "an edge case per refused event",
            worker,
        )
    finally:
        worker.stop()

    letters = [
        DeadLetter(m.key, m.value, [(k, v if isinstance(v, bytes) else b"") for k, v in m.headers])
        for m in read_topic(bootstrap, dlq, idle_timeout_s=3)
    ]
    by_code = {as_mapping(letter)["reason_code"]: as_mapping(letter) for letter in letters}
    assert sorted(by_code) == sorted(attacks)
    assert all(meta["reason"] and meta["stage"] == "projector" for meta in by_code.values())
    assert "belongs to 'loopline://bridge/test'" in by_code["foreign_source"]["reason"]
    assert "already has seq 3" in by_code["seq_taken"]["reason"]
    wanted = {e.id for e in real.events[:-1] + after.events}
    archived = {
        str(doc["id"]) for doc in store.iter_structured() if not str(doc["episodeid"]).startswith("edgecase:")
    }
    assert archived == wanted
    episode = reader.get_episode("ep-real")
    assert episode is not None and all(o.amount != Decimal("999999.00") for o in episode.outcomes)
    assert {e.episode_id for e in reader.list_episodes()} == {"ep-real", "ep-after"}
    assert audit_archive(store).ok
    assert audit_macs(store, load_keyring(worker.keys_file)) == []  # every archived event, MACs kept


def test_across_a_key_rotation_a_running_worker_accepts_the_old_key_and_the_new_one(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    archive: tuple[str, SqlEventArchive],
    tmp_path: Path,
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    url, store = archive
    make_topic(unique_topic, partitions=1)
    make_topic(dlq, partitions=1)
    episode = typical_episode("ep-rotated").events
    source = episode[0].source
    worker = WorkerProcess(bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic)
    try:
        old = producer_key(source)
        produce(bootstrap, unique_topic, raw=[_raw(e, old) for e in episode[:5]])
        wait_until(lambda: store.count(source=source) == 5, "the events under the old key", worker)
        # The producer gets a new private key and restarts; the worker's file, its public half.
        new = add_key(tmp_path / "producer-key.json", source, worker.keys_file)
        assert load_keyring(tmp_path / "producer-key.json").signing_key(source) == new != old
        assert new.key_id in {k.key_id for k in load_keyring(worker.keys_file).keys}
        assert not load_keyring(worker.keys_file).can_sign()
        produce(bootstrap, unique_topic, raw=[_raw(e, new) for e in episode[5:]])
        produce(bootstrap, unique_topic, raw=[_raw(typical_episode("ep-late").events[0], old)])  # in flight
        wait_until(
            lambda: store.count(source=source) == len(episode) + 1, "the events under both keys", worker
        )
    finally:
        worker.stop()
    assert list(read_topic(bootstrap, dlq, idle_timeout_s=2)) == []
    assert audit_archive(store).ok


NON_BRIDGE = ("loopline://bridge/detect", "loopline://workflows/promotion", "loopline://training/release")


def test_an_episode_fabricated_under_any_non_bridge_key_is_dead_lettered_and_the_worker_cannot_sign_for_others(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    archive: tuple[str, SqlEventArchive],
    tmp_path: Path,
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    url, store = archive
    make_topic(unique_topic, partitions=1)
    make_topic(dlq, partitions=1)
    template = typical_episode("ep-template").events
    fabricated: dict[str, list[Event]] = {}
    for n, source in enumerate(NON_BRIDGE):  # a whole paid episode, chained and validly signed
        chain = EpisodeChain(f"ep-minted-{n}", tenant="acme", source=source)
        fabricated[source] = [chain.append(e.data) for e in template]
    worker = WorkerProcess(bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic)
    # Everything the worker process is given: the public keyring and the detector's own key.
    held = [load_keyring(worker.keys_file), load_keyring(worker.detector_key_file)]
    sources = ("loopline://bridge/test", *NON_BRIDGE)
    signable = [s for s in sources if any(_can_sign(keyring, s) for keyring in held)]
    assert signable == ["loopline://bridge/detect"]  # and the detector may write edge cases only
    # The worker's one private key, used to pass an episode off as the bridge's.
    detector = held[1].signing_key("loopline://bridge/detect")
    posing = EpisodeChain("ep-posing", tenant="acme", source="loopline://bridge/test").append(
        template[0].data
    )
    after = typical_episode("ep-after")
    try:
        produce(bootstrap, unique_topic, [e for events in fabricated.values() for e in events])
        produce(bootstrap, unique_topic, raw=[_raw(posing, detector)])
        produce(bootstrap, unique_topic, after.events)
        wait_until(
            lambda: (
                (d := SqlEpisodeReader(store.engine).get_episode("ep-after")) is not None
                and d.episode.latest_outcome == "paid"
            ),
            "ep-after",
            worker,
        )
        expected = len(NON_BRIDGE) * len(template) + 1
        deadline = time.monotonic() + 60
        while len(letters := _letters(bootstrap, dlq)) < expected and time.monotonic() < deadline:
            time.sleep(0.5)  # the dead letters of a batch are produced after its events are archived
    finally:
        worker.stop()
    codes: dict[str, int] = {}
    for meta in letters:
        codes[meta["reason_code"]] = codes.get(meta["reason_code"], 0) + 1
    assert codes == {"out_of_scope": len(NON_BRIDGE) * len(template), "foreign_source": 1}
    reasons = {meta["reason"] for meta in letters if meta["reason_code"] == "out_of_scope"}
    for role in ("detector", "promotion", "release"):
        assert any(f"the {role} (" in reason and "may not write" in reason for reason in reasons), role
    archived = {str(doc["episodeid"]) for doc in store.iter_structured()}
    assert not archived & {*(f"ep-minted-{n}" for n in range(len(NON_BRIDGE))), "ep-posing"}
    assert "ep-after" in archived


def _letters(bootstrap: str, dlq: str) -> list[Mapping[str, str]]:
    return [as_mapping(DeadLetter(m.key, m.value, [(k, v or b"") for k, v in m.headers]))
            for m in read_topic(bootstrap, dlq, idle_timeout_s=2)]  # fmt: skip


def _can_sign(keyring: Keyring, source: str) -> bool:
    try:
        keyring.signing_key(source)
    except EventKeyError:
        return False
    return True
