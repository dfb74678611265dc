"""Settings of the streaming deployable (`loopline streams worker`, `replay`, `audit verify`).

Environment (prefix `LOOPLINE_`): `LOOPLINE_DB_URL`, `LOOPLINE_EVENTS_TOPIC`, `LOOPLINE_DLQ_TOPIC`,
`LOOPLINE_STREAMS_APP_ID`, `LOOPLINE_STREAMS_BATCH_SIZE`, `LOOPLINE_STREAMS_WEB_PORT`,
`LOOPLINE_STREAMS_WEB_BIND`, `LOOPLINE_STREAMS_OFFLOAD`,
`LOOPLINE_DEDUP_WINDOW_S`, `LOOPLINE_KNOWN_VOCABULARY_FILE`, `LOOPLINE_LATENCY_THRESHOLD_MS`,
`LOOPLINE_EVENT_KEYS_FILE` (the producers' public keys), `LOOPLINE_DETECTOR_KEY_FILE`,
`LOOPLINE_PROMOTION_KEY_FILE`, `LOOPLINE_RELEASE_KEY_FILE` (each producer's own signing key; all
made by `loopline up` under `.loopline/keys`, never at a process's start),
`LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE`, `LOOPLINE_STREAMS_CHECKPOINT_DIR`,
`LOOPLINE_STREAMS_CHECKPOINT_TOPIC` and `LOOPLINE_ENVIRONMENT`; the
broker from `LOOPLINE_KAFKA_*` (`loopline.kafka.settings.KafkaSettings`). Read when built, never at import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from loopline.kafka.settings import KafkaSettings
from loopline.stack.guard import require_given, require_keyring
from schemas.topics import DLQ_TOPIC, EVENTS_TOPIC, checkpoints_topic_of

if TYPE_CHECKING:
    from bridge.detect import DetectConfig
    from bridge.streams import StreamsConfig


class StreamsSettings(BaseSettings):
    """Where the archive and topics are, and how the stream processors behave."""

    model_config = SettingsConfigDict(env_prefix="LOOPLINE_", extra="ignore")

    db_url: str = Field(
        default="sqlite:///.loopline/archive.db",
        min_length=1,
        description="SQLAlchemy URL of the event archive.",
    )
    events_topic: str = Field(default=EVENTS_TOPIC, min_length=1, description="The event topic.")
    dlq_topic: str = Field(default=DLQ_TOPIC, min_length=1, description="The dead-letter topic.")
    streams_app_id: str = Field(
        default="loopline-streams", min_length=1, description="Consumer group of the worker."
    )
    streams_batch_size: int = Field(default=500, ge=1, le=50_000, description="Messages per SQL transaction.")
    streams_web_port: int | None = Field(
        default=None, ge=1, le=65535, description="Faust web port; unset: off."
    )
    streams_metrics_port: int | None = Field(
        default=None, ge=0, le=65535, description="Prometheus `/metrics` port of the worker; unset: off."
    )
    streams_web_bind: str = Field(
        default="127.0.0.1", min_length=1, description="Address the faust web port binds (0.0.0.0 in a pod)."
    )
    streams_offload: bool = Field(
        default=True, description="Run the agents' batch work in child processes (off the worker's GIL)."
    )
    topic_partitions: int = Field(default=4, ge=1, description="Partitions of topics the worker creates.")
    dedup_window_s: float = Field(default=3600.0, ge=0, description="Report each edge case once per window.")
    latency_threshold_ms: float = Field(
        default=30_000.0, gt=0, description="Calls slower than this are unusual."
    )
    known_vocabulary_file: Path | None = Field(
        default=None, description="JSON {field: [known values]} for the unknown-vocabulary rule, e.g. CARCs."
    )
    event_keys_file: Path = Field(
        default=Path(".loopline/keys/public.json"),
        description="Public keys of every producer whose events the worker accepts (no private key: "
        "the worker refuses a keyring that can sign); missing, the worker refuses to start.",
    )
    streams_checkpoint_key_file: Path = Field(
        default=Path(".loopline/keys/checkpoint-detector.key"),
        description="File with the Ed25519 seed (base64) that signs checkpoints of the detector's "
        "edge-case streams (`loopline up` makes the default; set and missing, or missing outside "
        "dev/test, the worker refuses to start; the default missing in dev: no checkpoints).",
    )
    streams_checkpoint_dir: Path = Field(
        default=Path(".loopline/checkpoints"), description="Where the detector's checkpoints go."
    )
    streams_checkpoint_topic: str | None = Field(
        default=None,
        min_length=1,
        description="The Kafka topic the detector also anchors its checkpoints on and `loopline audit "
        "verify` reads; unset: the events topic's sibling (`loopline.events.v1` → `loopline.checkpoints.v1`, "
        "where the bridge anchors its own).",
    )
    environment: Literal["dev", "test", "staging", "production"] = Field(
        default="dev", description="Outside dev/test the archive, broker and keyring must be given."
    )
    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    detector_key_file: Path = Field(
        default=Path(".loopline/keys/detector.json"),
        description="The detector's own signing key file (its edge-case reports).",
    )
    promotion_key_file: Path = Field(
        default=Path(".loopline/keys/promotion.json"),
        description="The promotion workflow's own signing key file (its `task.promoted` events).",
    )
    release_key_file: Path = Field(
        default=Path(".loopline/keys/release.json"),
        description="The release manager's own signing key file (its `adapter.*` events).",
    )

    def detector_checkpoint_key(self) -> Path | None:
        """The detector's checkpoint seed file; None for the absent default (the worker refuses to
        run without one outside dev/test: `loopline streams worker`)."""
        path = self.streams_checkpoint_key_file
        if path.is_file():
            return path.absolute()
        if "streams_checkpoint_key_file" in self.model_fields_set:
            raise ValueError(
                f"no checkpoint key at {path.absolute()} (LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE): "
                "`loopline up` makes the embedded stack's, `loopline audit keygen` prints one"
            )
        return None

    def producer_key_file(self, role: str) -> tuple[Path, str]:
        """(path, variable) of the signing key file of a producer role run from these settings."""
        paths = {
            "detector": self.detector_key_file,
            "promotion": self.promotion_key_file,
            "release": self.release_key_file,
        }
        if role not in paths:
            raise ValueError(f"role {role!r} has no key file in the streams settings")
        return paths[role], f"LOOPLINE_{role.upper()}_KEY_FILE"

    @model_validator(mode="after")
    def _given_outside_dev(self) -> StreamsSettings:
        require_given(self, ["db_url"], "LOOPLINE_", self.environment)
        require_given(self.kafka, ["bootstrap_servers", "embedded"], "LOOPLINE_KAFKA_", self.environment)
        require_keyring(self.event_keys_file, "LOOPLINE_EVENT_KEYS_FILE", self.environment)
        return self

    def known_vocabulary(self) -> dict[str, frozenset[str]]:
        """The configured vocabulary, read from its file (empty when none is configured)."""
        if self.known_vocabulary_file is None:
            return {}
        try:
            raw = json.loads(self.known_vocabulary_file.read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"LOOPLINE_KNOWN_VOCABULARY_FILE {self.known_vocabulary_file}: {exc}") from exc
        if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
            raise ValueError(f"{self.known_vocabulary_file} must hold a JSON object of lists")
        return {str(k): frozenset(str(x) for x in v) for k, v in raw.items()}

    def detect_config(self) -> DetectConfig:
        """The rule settings."""
        from bridge.detect import DetectConfig

        return DetectConfig(
            known_vocabulary=self.known_vocabulary(), latency_threshold_ms=self.latency_threshold_ms
        )

    def streams_config(self) -> StreamsConfig:
        """The streaming app's configuration."""
        from bridge.streams import StreamsConfig

        return StreamsConfig(
            app_id=self.streams_app_id,
            bootstrap_servers=self.kafka.bootstrap_servers,
            tls_files=self.kafka.tls_files(),
            events_topic=self.events_topic,
            dlq_topic=self.dlq_topic,
            topic_partitions=self.topic_partitions,
            db_url=self.db_url,
            session_timeout_s=self.kafka.session_timeout_ms / 1000,
            batch_size=self.streams_batch_size,
            offload=self.streams_offload,
            web_port=self.streams_web_port,
            metrics_port=self.streams_metrics_port,
            web_bind=self.streams_web_bind,
            dedup_window_s=self.dedup_window_s,
            detect=self.detect_config(),
            event_keys_file=self.event_keys_file.absolute(),
            signing_key_file=self.detector_key_file.absolute(),
            checkpoint_key_file=self.detector_checkpoint_key(),
            checkpoint_dir=self.streams_checkpoint_dir if self.detector_checkpoint_key() else None,
            checkpoint_topic=self.streams_checkpoint_topic,
            checkpoint_kafka=self.kafka.client_config("producer"),
        )

    def checkpoint_topic(self) -> str:
        """The topic checkpoints are anchored on: the configured one, else the events topic's sibling."""
        return self.streams_checkpoint_topic or checkpoints_topic_of(self.events_topic)
