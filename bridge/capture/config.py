"""`CaptureConfig`: everything capture needs, as plain values; the composition root builds it.

Nothing here reads the environment: `loopline/` maps its settings onto this model at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from bridge.capture.outbox import Durability
from bridge.phi import Environment, Unmodelled
from schemas.topics import EVENTS_TOPIC


class CaptureConfig(BaseModel):
    """Configuration of one capturing process (one tenant, one outbox file)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    tenant: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    """Tenant whose events this process records (a billing office, a fund)."""
    source: str = Field(default="loopline://bridge/capture", min_length=1, max_length=256)
    """CloudEvents `source` of the recorded events, e.g. `loopline://bridge/rcm`."""
    outbox_path: Path
    """SQLite file of the outbox; one per process."""
    durability: Durability = "process"
    """`process`: a recorded event survives a crash or SIGKILL; `power`: a power cut too (an fsync per event)."""
    vault_url: str
    """SQLAlchemy URL of the PHI vault database, e.g. `sqlite:////var/lib/loopline/vault.db`."""
    vault_key: SecretStr | None = None
    """Master PHI key (base64 or hex of 32+ random bytes); required outside dev/test."""
    environment: Environment = "production"
    """Where this runs; only `dev` and `test` may run without a real vault key."""
    unmodelled: Unmodelled = "tokenize"
    """Data without a model: `tokenize` every value (safe), or `keep` it (synthetic data only)."""
    topic: str = Field(default=EVENTS_TOPIC, min_length=1, max_length=249)
    """Kafka topic the relay produces to."""
    kafka: dict[str, Any] = Field(default_factory=dict)
    """librdkafka producer config (`bootstrap.servers`, ...); empty = no relay in this process."""
    relay_process: bool = False
    """Run the relay in a child process (`ProcessRelay`), off the recording threads' GIL, not a thread."""
    backlog_alarm_s: float = Field(default=60.0, gt=0)
    """`health()` is `degraded` once the oldest undelivered event has waited this long."""
    error_alarm_s: float = Field(default=30.0, gt=0)
    """`health()` is `degraded` while events wait and the relay's last error is this recent."""
    event_keys_file: Path | None = None
    """Keyring (`bridge.audit.event_keys`) holding this source's key: the relay MACs every event it
    produces with it, so the stream worker accepts them. None: events go unsigned (tests only)."""
    checkpoint_key: SecretStr | None = None
    """Ed25519 seed (base64) that signs checkpoints of the delivered stream heads; none: no checkpoints."""
    checkpoint_dir: Path | None = None
    """Where checkpoints go: a folder outside the archive (in production, storage nobody rewrites)."""
    checkpoint_topic: str | None = None
    """A Kafka topic each checkpoint also goes to (`bridge.audit.anchor`), with `kafka`; none: files only."""
    checkpoint_interval_s: float = Field(default=60.0, gt=0)
    """How often a checkpoint is written while the capture runs (and once more on close)."""
    retention_s: float = Field(default=3_600.0, ge=0)
    """How long delivered rows stay in the outbox before pruning (it is a queue, not the archive)."""
    head_retention_s: float | None = Field(default=7 * 86_400.0, ge=0)
    """How long each episode's last row stays, for `record_outcome` to resume its chain; None = forever."""

    @model_validator(mode="after")
    def _vault_apart_from_outbox(self) -> CaptureConfig:
        # The outbox is shipped and read downstream; raw PHI must never sit in the same file.
        if self.vault_url.startswith("sqlite") and self.vault_url.endswith(str(self.outbox_path)):
            raise ValueError("the PHI vault must not share the outbox's database file")
        return self
