"""`CaptureService`: the outbox, vault, redactor and relay of one process, wired from a config; the
composition root (`loopline/`) opens one per process and hands `service.recorder` to the runtime."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

from bridge.audit.anchor import KafkaAnchor
from bridge.audit.checkpoints import private_key
from bridge.audit.event_keys import load_keyring
from bridge.capture.checkpoint import CheckpointWriter
from bridge.capture.config import CaptureConfig
from bridge.capture.outbox import OutboxClosed, SqliteOutbox
from bridge.capture.recovery import close_interrupted
from bridge.capture.relay import KafkaRelay, ProcessRelay
from bridge.phi import KnownPhi, PhiKeys, PhiTokenizer, PhiVault, Redactor, SnapshotRedact
from bridge.phi.known import tokens_in
from bridge.recording.gate import GatedSink
from bridge.recording.outcome import record_outcome
from bridge.recording.recorder import EpisodeRecorder
from bridge.recording.sink import CaptureUnavailable
from schemas import Event, new_id
from schemas.events import OutcomeObserved


@dataclass
class CaptureService:
    """Everything capture runs in one process; close it on shutdown to drain the relay."""

    config: CaptureConfig
    outbox: SqliteOutbox
    vault: PhiVault
    redactor: Redactor
    relay: KafkaRelay | ProcessRelay | None
    checkpoints: CheckpointWriter | None = None
    """Writes signed checkpoints of the delivered heads when `config.checkpoint_key` is set."""
    gate: GatedSink = field(init=False)
    """What recorders append through: closed by `stop_taking_events` while the process drains."""
    _closed: bool | None = field(default=None, init=False)  # the answer of the first close()

    def __post_init__(self) -> None:
        self.gate = GatedSink(self.outbox)

    @classmethod
    def open(cls, config: CaptureConfig, *, start_relay: bool = True) -> CaptureService:
        """Open the stores; start the relay when `config.kafka` is set and `start_relay`."""
        secret = config.vault_key.get_secret_value() if config.vault_key else None
        keys = PhiKeys.from_config(secret, environment=config.environment)  # refuses a bad key first
        vault = PhiVault.open(config.vault_url, keys)
        redactor = Redactor(PhiTokenizer(keys, vault), config.tenant, unmodelled=config.unmodelled)
        outbox = SqliteOutbox(config.outbox_path, durability=config.durability)
        relay: KafkaRelay | ProcessRelay | None = None
        if config.kafka:
            signer = (
                None
                if config.event_keys_file is None
                else load_keyring(config.event_keys_file).signing_key(config.source)
            )
            relay = (ProcessRelay if config.relay_process else KafkaRelay)(
                outbox,
                topic=config.topic,
                kafka_config=config.kafka,
                retention_s=config.retention_s,
                head_retention_s=config.head_retention_s,
                signer=signer,
            )
            if start_relay:
                relay.start()
        checkpoints = None
        if config.checkpoint_key is not None and config.checkpoint_dir is not None:
            checkpoints = CheckpointWriter(
                outbox,
                private_key(config.checkpoint_key.get_secret_value()),
                source=config.source,
                folder=config.checkpoint_dir,
                interval_s=config.checkpoint_interval_s,
                anchor=(
                    KafkaAnchor(config.kafka, config.checkpoint_topic)
                    if config.kafka and config.checkpoint_topic
                    else None
                ),
            )
            checkpoints.start()
        return cls(config, outbox, vault, redactor, relay, checkpoints)

    def recorder(
        self,
        episode_id: str | None = None,
        *,
        args_models: Mapping[str, type[BaseModel]] | None = None,
        snapshot_redact: SnapshotRedact | None = None,
        traceparent: str | None = None,
    ) -> EpisodeRecorder:
        """The recorder of a new episode (a fresh UUIDv7 id when none is given)."""
        return EpisodeRecorder(
            episode_id or new_id(),
            sink=self.gate,
            redactor=self.redactor,
            source=self.config.source,
            args_models=args_models,
            snapshot_redact=snapshot_redact,
            traceparent=traceparent,
        )

    def record_outcome(
        self,
        episode_id: str,
        outcome: OutcomeObserved,
        *,
        details_model: type[BaseModel] | None = None,
        history: Iterable[Mapping[str, Any]] = (),
    ) -> Event:
        """Append `outcome.observed` to an episode recorded by this outbox. Its free text is
        scrubbed of the PHI the episode showed: every token in the episode's events still in the
        outbox and in `history` (its archived events; the outbox keeps only recent rows), looked
        up in the vault, as the episode's own recorder knew them."""
        docs = [*self.outbox.events(episode_id), *history]
        known = KnownPhi()
        for value in self.vault.values_for_scrubbing(self.config.tenant, tokens_in(docs)):
            known.learn(value)
        return record_outcome(
            self.gate,
            episode_id,
            outcome,
            redactor=self.redactor,
            source=self.config.source,
            details_model=details_model,
            known=known,
            traceparent=next((d["traceparent"] for d in docs if d.get("traceparent")), None),
        )

    def stop_taking_events(self, reason: str) -> None:
        """Refuse every later append from recorders (`CaptureUnavailable` with `reason`)."""
        self.gate.close_gate(reason)

    def close_interrupted(self, reason: str) -> list[Event]:
        """Close every episode of the outbox left open (`episode.interrupted`); the events written.
        Call it at start-up, before any episode runs, or after `stop_taking_events`."""
        return close_interrupted(self.outbox, self.redactor, self.config.source, reason)

    def health(self, now: float | None = None) -> dict[str, Any]:
        """Capture's state for `/healthz`, with the relay's counters and the age of the backlog.

        `degraded`, with the `reasons`, when the relay should run and does not, when events wait and
        the relay's last error is recent (it cannot deliver: a broker down), when the oldest waiting
        event is older than `backlog_alarm_s`, or when the outbox cannot be read. Events then wait,
        safe, in the outbox."""
        now = time.time() if now is None else now
        try:
            oldest = self.outbox.oldest_pending_at()
            if self.relay is None:
                pending = self.outbox.pending_count()
                age = None if oldest is None else round(now - oldest, 3)
                return {"status": "ok", "relay": "off", "pending": pending, "backlog_age_s": age}
            counters = asdict(self.relay.metrics())
        except OutboxClosed:
            return {"status": "closed", "relay": "off"}
        except CaptureUnavailable as exc:
            return {
                "status": "degraded",
                "relay": "unknown",
                "last_error": str(exc),
                "reasons": ["outbox unreadable"],
            }
        age = None if oldest is None else max(0.0, now - oldest)
        running = counters.pop("running")
        reasons = [] if running else ["the relay is not running"]
        error_at = counters.get("last_error_at")
        if age is not None and error_at is not None and now - error_at <= self.config.error_alarm_s:
            reasons.append(f"the relay cannot deliver: {counters.get('last_error')}")
        if age is not None and age > self.config.backlog_alarm_s:
            reasons.append(f"the oldest undelivered event has waited {age:.0f} s")
        return {
            "status": "degraded" if reasons else "ok",
            "relay": "running" if running else "stopped",
            "reasons": reasons,
            "backlog_age_s": None if age is None else round(age, 3),
            **counters,
        }

    def close(self, timeout: float = 10.0) -> bool:
        """Drain the relay for up to `timeout`, then close everything; True if every event was
        delivered (or rejected for good: `health()["rejected"]`). A second call returns the first's answer."""
        if self._closed is None:
            self._closed = self.relay.close(timeout) if self.relay is not None else False
            if self.checkpoints is not None:
                self.checkpoints.stop()  # the heads the relay delivered before it stopped
            self.outbox.close()
            self.vault.close()
        return self._closed

    def __enter__(self) -> CaptureService:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
