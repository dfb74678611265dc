"""Configuration of the streaming app; `loopline` composes it from its settings."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge.audit.event_keys import EventKey, load_keyring
from bridge.detect.config import DetectConfig
from bridge.store.engine import validate_sql_url
from schemas.topics import DLQ_TOPIC, EVENTS_TOPIC, checkpoints_topic_of


class StreamsConfig(BaseModel):
    """Everything `make_app` needs: broker, topics, database, batching and rule settings."""

    model_config = ConfigDict(frozen=True)

    app_id: str = Field(
        default="loopline-streams", min_length=1, description="Faust app id = consumer group."
    )
    bootstrap_servers: str = Field(default="127.0.0.1:9092", description="Comma-separated host:port list.")
    events_topic: str = Field(
        default=EVENTS_TOPIC, description="Where every event travels; edge cases go here too."
    )
    dlq_topic: str = Field(
        default=DLQ_TOPIC, description="Where undecodable or invalid messages go, with the reason."
    )
    topic_partitions: int = Field(default=4, ge=1, description="Partitions for topics the app has to create.")
    db_url: str = Field(min_length=1, description="SQLAlchemy URL of the archive (SQLite or Postgres).")
    session_timeout_s: float = Field(
        default=6.0, gt=0, le=300, description="Consumer-group session timeout; 3-6 s on the embedded broker."
    )
    batch_size: int = Field(default=500, ge=1, le=50_000, description="Most messages per SQL transaction.")
    batch_within_s: float = Field(default=0.2, gt=0, description="Longest wait to fill a batch.")
    data_dir: Path | None = Field(
        default=None,
        description="Faust's data folder (it keeps nothing there: no tables); default: the temp folder, "
        "never the working directory.",
    )
    web_port: int | None = Field(
        default=None, ge=1, le=65535, description="Faust web (metrics) port; None: off."
    )
    metrics_port: int | None = Field(
        default=None, ge=0, le=65535, description="Prometheus `/metrics` port (projector lag); None: off."
    )
    tls_files: tuple[Path, Path, Path] | None = Field(
        default=None, description="(CA, client certificate, client key) PEM files for TLS to the brokers."
    )
    web_bind: str = Field(
        default="127.0.0.1",
        min_length=1,
        description="Address the web port binds; 0.0.0.0 where a kubelet probes `/healthz` and `/readyz`.",
    )
    offload: bool = Field(
        default=True,
        description="Run batch work in child processes (one per agent kind), off the GIL of faust.",
    )
    projector: bool = Field(default=True, description="Run the projector agent.")
    detector: bool = Field(default=True, description="Run the edge-case detector agents.")
    dedup_window_s: float = Field(
        default=3600.0, ge=0, description="Report each edge case once per this window."
    )
    detect: DetectConfig = Field(default_factory=DetectConfig)
    source: str = Field(
        default="loopline://bridge/detect", description="CloudEvents source of edge-case events."
    )
    event_keys_file: Path | None = Field(
        default=None,
        description="Keyring (`bridge.audit.event_keys`) of every producer whose events are accepted "
        "(public keys). None: no authentication (in-process tests only; the `loopline streams "
        "worker` always has one).",
    )
    signing_key_file: Path | None = Field(
        default=None,
        description="The detector's own private key file (`bridge.audit.event_keys`) it signs its reports "
        "with; None: the signing key of `source` in `event_keys_file` (legacy HMAC keyrings, tests).",
    )
    checkpoint_key_file: Path | None = Field(
        default=None,
        description="File holding the Ed25519 seed (base64) that signs checkpoints of the detector's "
        "`edgecase:` stream heads; None: no checkpoints.",
    )
    checkpoint_dir: Path | None = Field(
        default=None, description="Where the detector's checkpoints go, outside the archive."
    )
    checkpoint_topic: str | None = Field(
        default=None,
        min_length=1,
        description="Kafka topic each checkpoint also goes to, off the archive's host "
        "(`bridge.audit.anchor`); None: the events topic's sibling (`schemas.topics.checkpoints_topic_of`).",
    )
    checkpoint_kafka: dict[str, Any] = Field(
        default_factory=dict,
        description="librdkafka producer config for the checkpoint topic; empty: checkpoints go to files only.",
    )

    @field_validator("db_url")
    @classmethod
    def _db_url(cls, value: str) -> str:
        return validate_sql_url(value)

    @field_validator("bootstrap_servers")
    @classmethod
    def _servers(cls, value: str) -> str:
        hosts = [h.strip() for h in value.split(",") if h.strip()]
        if not hosts:
            raise ValueError("bootstrap_servers is empty")
        return ",".join(hosts)

    def detector_key(self) -> EventKey | None:
        """The key the detector signs its reports with: from `signing_key_file`, else the signing key
        of `source` in `event_keys_file`; None without either (no authentication)."""
        path = self.signing_key_file or self.event_keys_file
        return None if path is None else load_keyring(path).signing_key(self.source)

    @property
    def anchor_topic(self) -> str:
        """The topic the detector's checkpoints are anchored on (`checkpoint_topic`, else the sibling)."""
        return self.checkpoint_topic or checkpoints_topic_of(self.events_topic)

    @property
    def faust_datadir(self) -> Path:
        """The data folder for faust, its parent created."""
        folder = self.data_dir or Path(tempfile.gettempdir()) / "loopline-streams" / re.sub(
            r"[^\w.-]", "_", self.app_id
        )
        folder.parent.mkdir(parents=True, exist_ok=True)
        return folder

    @property
    def broker_urls(self) -> list[str]:
        """Faust's form of the bootstrap servers."""
        return [f"kafka://{host}" for host in self.bootstrap_servers.split(",")]
