"""The audit `loopline audit verify` runs and the demo prints: every check, or a finding saying why
one could not run (a weaker audit is asked for by name, `--skip CHECK`, never fallen into).

Checks: every stream's hash chain; every stored hash against its content; every signed checkpoint
a prefix of its stream (deleted, truncated, rewritten); no stream of a checkpointing producer grown
past its newest checkpoint beyond the allowed lag; every archived event signed by its producer and
within its scope; the projections against a rebuild of the archive. The checkpoints are those in
the folders and those anchored on the checkpoint topic (`AnchoredCheckpoints`, read by default by
`loopline audit verify`; unreadable, it is a finding; `--skip checkpoint-topic` leaves it out).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bridge.audit.checkpoints import CheckpointError, compare_heads, public_key
from bridge.audit.event_keys import EventKeyError, Keyring, load_keyring
from bridge.store import SqlEventArchive, audit_archive
from bridge.store.audit import audit_macs, verified_checkpoints
from bridge.store.audit_content import audit_hash_columns, audit_projections, audit_unsigned_growth
from bridge.store.audit_topic import TopicRecord, audit_topic
from loopline.kafka.settings import KafkaSettings

SKIPPABLE = frozenset({"checkpoints", "checkpoint-topic", "event-topic", "signatures", "projections"})
DEFAULT_LAG_S = 300.0
"""How long an event may stand past its producer's newest checkpoint (the bridge checkpoints every
60 s by default, and once more when it stops)."""


@dataclass(frozen=True)
class AnchoredCheckpoints:
    """Checkpoint documents kept off the archive's host (`bridge.audit.anchor`): where, and a
    reader of every one there (raising `CheckpointError` when the place cannot be read)."""

    where: str
    read: Callable[[], list[dict[str, Any]]]


class TopicUnreadable(RuntimeError):
    """The event topic (or the broker) could not be read."""


@dataclass(frozen=True)
class EventTopic:
    """The event topic the archive was written from: where, and a reader of all it still keeps
    and of its dead letters (raising `TopicUnreadable`)."""

    where: str
    read: Callable[[], TopicRecord]


@dataclass
class AuditOutcome:
    """What the audit found, by label (`broken`, `edited`, `missing`, `refused`, `unsigned`,
    `not a producer's`, `projection`, `not checked`), and what it checked."""

    streams: int = 0
    events: int = 0
    chain_breaks: int = 0
    findings: list[tuple[str, str]] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Checks the caller asked to leave out, by name."""

    @property
    def ok(self) -> bool:
        return not self.findings

    def add(self, label: str, lines: Sequence[str]) -> None:
        self.findings.extend((label, line) for line in lines)


def read_checkpoint_keys(path: Path) -> list[Ed25519PublicKey]:
    """The public keys listed in `path` (base64, one a line); `CheckpointError` when unreadable."""
    try:
        return [public_key(line) for line in path.read_text().split()]
    except OSError as exc:
        raise CheckpointError(f"cannot read the checkpoint public keys {path}: {exc}") from None


def run_audit(
    archive: SqlEventArchive,
    *,
    checkpoint_dirs: Sequence[Path],
    checkpoint_keys: Sequence[Ed25519PublicKey] | Path,
    event_keys: Keyring | Path,
    lag_s: float = DEFAULT_LAG_S,
    skip: frozenset[str] = frozenset(),
    now: datetime | None = None,
    anchors: AnchoredCheckpoints | None = None,
    events: EventTopic | None = None,
) -> AuditOutcome:
    """Every check over `archive` but those named in `skip` (of `SKIPPABLE`; the hash chains and
    stored hashes always run). Key files that are missing, checkpoint folders without checkpoints
    and `anchors` that cannot be read are findings (`not checked`). `anchors`: where checkpoint
    documents are anchored off the host (their Kafka topic), checked with the files. `events`: the
    event topic, which the archive is checked against, and without which an event past its
    producer's newest checkpoint counts as in flight on its stored position alone."""
    unknown = skip - SKIPPABLE
    if unknown:
        raise ValueError(
            f"no such check to skip: {', '.join(sorted(unknown))} (of {', '.join(sorted(SKIPPABLE))})"
        )
    out = AuditOutcome()
    report = audit_archive(archive)
    out.streams, out.events, out.chain_breaks = report.streams, report.events, len(report.breaks)
    out.add("broken", [str(b) for b in report.breaks])
    out.add("edited", audit_hash_columns(archive))
    out.checked += ["hash chains", "stored hashes against content"]
    topic = None
    if events is not None and "event-topic" not in skip:
        topic = _event_topic(out, events)
        if topic is not None:
            out.add("topic", audit_topic(archive, topic))
            out.checked.append(f"the archive against the {len(topic.events)} event(s) on {events.where}")
    if "checkpoints" not in skip:
        anchored = [] if anchors is None or "checkpoint-topic" in skip else _anchored(out, anchors)
        _checkpoints(out, archive, checkpoint_dirs, checkpoint_keys, lag_s, now, anchored, topic)
    keyring = None if "signatures" in skip else _keyring(out, event_keys)
    if keyring is not None:
        out.add("not a producer's", audit_macs(archive, keyring))
        out.checked.append("producer signatures and scopes")
    if "projections" not in skip:
        out.add("projection", audit_projections(archive))
        out.checked.append("projections against a rebuild")
    out.skipped = sorted(skip)
    return out


def _anchored(out: AuditOutcome, anchors: AnchoredCheckpoints) -> list[dict[str, Any]]:
    try:
        docs = anchors.read()
    except CheckpointError as exc:
        out.add("not checked", [f"checkpoint topic: cannot read {anchors.where}: {exc}"])
        return []
    out.checked.append(f"{len(docs)} checkpoint(s) anchored on {anchors.where}")
    return docs


def _event_topic(out: AuditOutcome, events: EventTopic) -> TopicRecord | None:
    try:
        return events.read()
    except TopicUnreadable as exc:
        out.add("not checked", [f"event topic: cannot read {events.where}: {exc}"])
        return None


def _keyring(out: AuditOutcome, event_keys: Keyring | Path) -> Keyring | None:
    if isinstance(event_keys, Keyring):
        return event_keys
    try:
        return load_keyring(event_keys)
    except EventKeyError as exc:
        out.add("not checked", [f"producer signatures: {exc}"])
        return None


def _checkpoints(
    out: AuditOutcome,
    archive: SqlEventArchive,
    folders: Sequence[Path],
    keys: Sequence[Ed25519PublicKey] | Path,
    lag_s: float,
    now: datetime | None,
    anchored: Sequence[Mapping[str, Any]],
    topic: TopicRecord | None,
) -> None:
    try:
        trusted = read_checkpoint_keys(keys) if isinstance(keys, Path) else list(keys)
    except CheckpointError as exc:
        out.add("not checked", [f"checkpoints: {exc}"])
        return
    if not trusted:
        out.add("not checked", ["checkpoints: no checkpoint public key given"])
        return
    docs: list[Mapping[str, Any]] = list(anchored)
    for folder in dict.fromkeys(folders):
        files = sorted(folder.glob("checkpoint-*.json"))
        if not files and not anchored:
            out.add("not checked", [f"checkpoints: none in {folder.absolute()}"])
        for path in files:
            try:
                docs.append(json.loads(path.read_text()))
            except (OSError, ValueError) as exc:
                out.add("refused", [f"{path.name}: unreadable ({exc})"])
    verified = verified_checkpoints(docs, trusted)
    out.add("refused", verified.refused)
    findings: dict[str, str] = {}
    for stream, head in sorted(verified.every_head):  # each checkpoint a prefix of its stream
        for finding in compare_heads({stream: head}, archive.head_at):
            findings.setdefault(str(finding), str(finding))
    out.add("missing", list(findings.values()))
    out.add(
        "unsigned",
        audit_unsigned_growth(archive, verified.newest, verified.sources, lag_s=lag_s, now=now, topic=topic),
    )
    out.checked.append(f"{len(docs)} checkpoint(s): prefixes, and growth past them within {lag_s:g} s")


def topic_sources(
    kafka: KafkaSettings, events_topic: str, dlq_topic: str, checkpoint_topic: str
) -> tuple[AnchoredCheckpoints, EventTopic]:
    """The checkpoint topic and the event topic (with its dead letters) on `kafka`'s broker, as the
    audit reads them: what `loopline audit verify` checks by default, and the demo too."""
    client = kafka.client_config("consumer")
    servers = kafka.bootstrap_servers
    anchors = AnchoredCheckpoints(
        f"{checkpoint_topic} at {servers}", lambda: _read_anchored(servers, checkpoint_topic, client)
    )
    events = EventTopic(
        f"{events_topic} at {servers}", lambda: _read_event_topic(servers, events_topic, dlq_topic, client)
    )
    return anchors, events


def _read_anchored(bootstrap_servers: str, topic: str, client: dict[str, Any]) -> list[dict[str, Any]]:
    """Every checkpoint document on `topic`; `CheckpointError` when the broker or topic cannot be read."""
    from confluent_kafka import KafkaException

    from bridge.audit.anchor import anchored_checkpoints
    from bridge.audit.checkpoints import CheckpointError

    try:
        return list(anchored_checkpoints(bootstrap_servers, topic, extra=client))
    except KafkaException as exc:
        raise CheckpointError(str(exc)) from None


def _read_event_topic(bootstrap_servers: str, topic: str, dlq: str, client: dict[str, Any]) -> TopicRecord:
    """All `topic` still keeps, and the dead letters on `dlq` (none when it does not exist);
    `TopicUnreadable` when the broker or `topic` cannot be read."""
    from confluent_kafka import KafkaException

    from bridge.streams.topic_reader import read_topic

    try:
        read = read_topic(bootstrap_servers, topic, idle_timeout_s=3, extra=client)
        messages = [(m.partition, m.offset, m.value, m.headers) for m in read]
    except KafkaException as exc:
        raise TopicUnreadable(str(exc)) from None
    try:
        dead = [m.headers for m in read_topic(bootstrap_servers, dlq, idle_timeout_s=3, extra=client)]
    except KafkaException:
        dead = []  # no dead-letter topic: nothing was dead-lettered (a deleted one fails closed)
    return TopicRecord.read(topic, messages, dead)
