"""Audit the archive: verify every stream's hash chain on the structured JSON as stored, compare it
with signed checkpoints of the stream heads kept outside it, and check each event's producer MAC."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bridge.audit.checkpoints import CheckpointError, HeadFinding, compare_heads, key_id, verify_checkpoint
from bridge.audit.event_keys import Keyring, verify_stored
from bridge.audit.scopes import SCOPES
from bridge.store.archive import SqlEventArchive
from bridge.store.tables import ARCHIVE_TABLE, MAC_TABLE
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


def audit_checkpoints(
    archive: SqlEventArchive,
    checkpoints: Iterable[Mapping[str, Any]],
    keys: Ed25519PublicKey | Sequence[Ed25519PublicKey],
) -> tuple[list[str], list[HeadFinding]]:
    """Check the archive against signed checkpoints (each file's signature first, then the highest
    checkpointed head of every stream): the refused checkpoints, with why, and what the archive
    deleted, truncated or rewrote. `keys` lists every public key in use across a rotation: the
    checkpoint's `key_id` picks its key, and one signed by no listed key is refused."""
    verified = verified_checkpoints(checkpoints, keys)
    findings: dict[str, HeadFinding] = {}
    for stream, head in sorted(verified.every_head):  # each checkpoint a prefix of its stream
        for finding in compare_heads({stream: head}, archive.head_at):
            findings.setdefault(str(finding), finding)
    return verified.refused, list(findings.values())


@dataclass(frozen=True)
class VerifiedCheckpoints:
    """What the checkpoints whose signatures verify say, and why the others were refused."""

    refused: list[str]
    newest: dict[str, tuple[int, str]]
    """Stream → its highest checkpointed head."""
    every_head: set[tuple[str, tuple[int, str]]]
    """Every (stream, head) any checkpoint holds."""
    sources: set[str]
    """The producers that wrote them."""


def verified_checkpoints(
    checkpoints: Iterable[Mapping[str, Any]], keys: Ed25519PublicKey | Sequence[Ed25519PublicKey]
) -> VerifiedCheckpoints:
    """Verify each checkpoint's signature (its `key_id` picks the key; one signed by no listed key
    is refused) and gather the heads of those that verify."""
    trusted = {key_id(k): k for k in ([keys] if isinstance(keys, Ed25519PublicKey) else keys)}
    out = VerifiedCheckpoints([], {}, set(), set())
    for doc in checkpoints:
        key = trusted.get(str(doc.get("key_id")), next(iter(trusted.values())))
        try:
            heads = verify_checkpoint(doc, key)
        except CheckpointError as exc:
            out.refused.append(str(exc))
            continue
        out.sources.add(str(doc.get("source")))
        for stream, head in heads.items():
            out.every_head.add((stream, head))
            if stream not in out.newest or head[0] > out.newest[stream][0]:
                out.newest[stream] = head
    return out


def audit_macs(archive: SqlEventArchive, keyring: Keyring) -> list[str]:
    """Every archived event whose stored producer signature is missing or does not verify with
    `keyring`, or that is outside its producer's scope (`bridge.audit.scopes`): an event written
    into the archive around the stream worker (or before signatures were kept), or archived before
    scopes were enforced, is named, though its chain is intact. Public keys suffice."""
    a, m = ARCHIVE_TABLE, MAC_TABLE
    joined = a.outerjoin(m, sa.and_(a.c.source == m.c.source, a.c.event_id == m.c.event_id))
    query = (
        sa.select(a.c.episodeid, a.c.seq, a.c.structured, m.c.key_id, m.c.mac)
        .select_from(joined)
        .order_by(a.c.episodeid, a.c.seq, a.c.position)
    )
    findings: list[str] = []
    with archive.engine.connect() as conn:
        for row in conn.execution_options(yield_per=2000).execute(query):
            mac = None if row.key_id is None else (str(row.key_id), str(row.mac))
            doc = json.loads(row.structured)
            refusal = verify_stored(keyring, doc, mac) or SCOPES.check(doc)
            if refusal is not None:
                findings.append(f"stream {row.episodeid} seq {row.seq}: {refusal.code}: {refusal.reason}")
    return findings
