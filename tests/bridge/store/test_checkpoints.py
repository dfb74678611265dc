"""Signed checkpoints kept outside the archive name what the hash chain alone cannot: a truncated
tail, a deleted stream, a stream edited and re-hashed; a forged checkpoint is refused."""

from __future__ import annotations

import json

import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bridge.audit.checkpoints import sign_checkpoint
from bridge.store import ArchiveRecord, SqlEventArchive, audit_archive
from bridge.store.audit import audit_checkpoints
from schemas.chain import hash_structured
from tests.bridge.store.builders import typical_episode


def _rows(archive: SqlEventArchive, stream: str) -> list[tuple[str, dict[str, object]]]:
    with archive.engine.connect() as conn:
        found = conn.execute(
            sa.text("SELECT event_id, structured FROM event_archive WHERE episodeid = :s ORDER BY seq"),
            {"s": stream},
        )
        return [(event_id, json.loads(text)) for event_id, text in found]


def test_truncation_deletion_and_edit_and_rehash_are_named_and_a_forged_checkpoint_refused(
    archive: SqlEventArchive,
) -> None:
    episodes = [typical_episode(f"ep-{i}") for i in range(4)]
    archive.append([ArchiveRecord.of(e) for ep in episodes for e in ep.events])
    key = Ed25519PrivateKey.generate()
    heads = {ep.episode_id: (ep.events[-1].seq, ep.events[-1].hash) for ep in episodes}
    checkpoint = sign_checkpoint(heads, source="loopline://bridge/test", at=1.0, key=key)
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = 'ep-1' AND seq = :s"),
                     {"s": episodes[1].events[-1].seq})  # fmt: skip
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = 'ep-2'"))
    prev = None
    with archive.engine.begin() as conn:  # ep-3: an amount edited, every later hash recomputed
        for event_id, doc in _rows(archive, "ep-3"):
            if prev is not None:
                doc["prevhash"] = prev
            if doc["type"] == "loopline.tool.failed.v1":
                doc["data"]["name"] = "get_claim"
            doc["hash"] = prev = hash_structured(doc)
            conn.execute(sa.text("UPDATE event_archive SET structured = :s, hash = :h WHERE event_id = :id"),
                         {"s": json.dumps(doc), "h": doc["hash"], "id": event_id})  # fmt: skip
    assert audit_archive(archive).ok  # the chains alone see nothing wrong
    forged = {**checkpoint, "heads": {**checkpoint["heads"], "ep-0": {"seq": 99, "hash": "x"}}}
    refused, findings = audit_checkpoints(archive, [checkpoint, forged], key.public_key())
    assert len(refused) == 1 and "not signed" in refused[0]
    assert [(f.stream, f.kind) for f in findings] == [
        ("ep-1", "tail_truncated"), ("ep-2", "stream_deleted"), ("ep-3", "rewritten"),
    ]  # fmt: skip
    other = Ed25519PrivateKey.generate().public_key()
    assert (
        len(audit_checkpoints(archive, [checkpoint], other)[0]) == 1
    )  # another key's word counts for nothing


def test_across_a_key_rotation_checkpoints_of_both_keys_count_and_a_retired_key_alone_does_not(
    archive: SqlEventArchive,
) -> None:
    episodes = [typical_episode(f"ep-{i}") for i in range(2)]
    archive.append([ArchiveRecord.of(e) for ep in episodes for e in ep.events])
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    first = sign_checkpoint(
        {"ep-0": (episodes[0].events[-1].seq, episodes[0].events[-1].hash)}, source="s", at=1.0, key=old
    )
    second = sign_checkpoint(
        {"ep-1": (episodes[1].events[-1].seq, episodes[1].events[-1].hash)}, source="s", at=2.0, key=new
    )
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = 'ep-0'"))
    refused, findings = audit_checkpoints(archive, [first, second], [old.public_key(), new.public_key()])
    assert refused == [] and [(f.stream, f.kind) for f in findings] == [("ep-0", "stream_deleted")]
    refused, _ = audit_checkpoints(archive, [first, second], [new.public_key()])
    assert len(refused) == 1  # the old key's checkpoint is refused once its key is no longer trusted
