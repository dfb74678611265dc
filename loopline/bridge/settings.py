"""Settings of the bridge deployable (`loopline bridge serve`), `LOOPLINE_BRIDGE_` prefix.

Read when built (at start-up), never at import. Outside `dev`/`test` the settings refuse to start
without a real PHI key and real API tokens, so a placeholder never reaches production.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from envs.domain import DOMAINS
from loopline.kafka.settings import KafkaSettings
from loopline.stack.guard import refuse_dev_tokens, require_given, require_keyring
from schemas.topics import CHECKPOINTS_TOPIC, EVENTS_TOPIC

Environment = Literal["dev", "test", "staging", "production"]
RoleName = Literal["agent", "integration", "reviewer", "operator"]

DEV_TOKENS: dict[str, RoleName] = {
    "dev-agent-token": "agent",
    "dev-integration-token": "integration",
    "dev-reviewer-token": "reviewer",
    "dev-operator-token": "operator",
}
"""Clear tokens admitted in `dev` only, so the embedded demo and curl examples just work."""


class BridgeSettings(BaseSettings):
    """Where the bridge listens, what it calls, where it records, who may use it."""

    model_config = SettingsConfigDict(
        env_prefix="LOOPLINE_BRIDGE_", env_nested_delimiter="__", extra="ignore"
    )

    environment: Environment = Field(default="dev", description="dev and test may use dev tokens and keys.")
    host: str = Field(default="127.0.0.1", description="Listen address.")
    port: int = Field(default=8700, ge=1, le=65535, description="Listen port.")
    tenant: str = Field(default="demo", pattern=r"^[A-Za-z0-9_.-]{1,64}$", description="Tenant recorded.")
    domain: str = Field(
        default="rcm", description="The domain this bridge works (a registered domain's name)."
    )
    source: str = Field(
        default="", description="CloudEvents source of captured events; default `loopline://bridge/<domain>`."
    )
    state_dir: Path = Field(default=Path(".loopline/bridge"), description="Outbox and vault files.")
    vault_url: str | None = Field(
        default=None, description="PHI vault SQL URL; default: a file in state_dir."
    )
    vault_key: SecretStr | None = Field(
        default=None, description="PHI master key (32+ random bytes, hex/b64)."
    )
    token_digests: dict[str, RoleName] = Field(
        default_factory=dict, description="SHA-256 hex of each API token → its role (JSON)."
    )
    token_names: dict[str, str] = Field(
        default_factory=dict,
        description="SHA-256 hex of a token → the person it belongs to (JSON); labels and review decisions carry it.",
    )
    live_url: str = Field(
        default="http://127.0.0.1:8835", description="The live system (the domain's sandbox) base URL."
    )
    live_timeout_s: float = Field(
        default=5.0, gt=0, le=300, description="Per-request timeout against the live system."
    )
    policy: Literal["openai", "reference"] = Field(
        default="reference", description="`openai`: a served model; `reference`: the scripted specialist."
    )
    policy_base_url: str = Field(
        default="http://127.0.0.1:8000/v1", description="OpenAI-compatible base URL."
    )
    policy_model: str = Field(
        default="", description="Model (or adapter) name to request; default `loopline-<domain>`."
    )
    policy_api_key: SecretStr | None = Field(default=None, description="API key for the policy server.")
    max_steps: int = Field(default=16, ge=1, le=200, description="Model turns per episode.")
    max_seconds: float = Field(default=300.0, gt=0, description="Wall time per episode.")
    db_url: str = Field(default="sqlite:///.loopline/archive.db", description="Event archive (read side).")
    events_topic: str = Field(default=EVENTS_TOPIC, description="Topic the relay produces to.")
    relay_process: bool = Field(
        default=True,
        description="Run the outbox relay in a child process, off the recording threads' GIL "
        "(docs/capture.md); false runs it as a thread.",
    )
    durability: Literal["process", "power"] = Field(
        default="process",
        description="`process`: a recorded event survives a crash or SIGKILL of the bridge; `power`: "
        "a power cut too, at an fsync per event (docs/capture.md has the cost).",
    )
    temporal_address: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.\[\]:-]+:[0-9]{1,5}$",
        description="Temporal frontend host:port of the promotion workflows; set, the bridge serves "
        "`/v1/review` and the `/review` page; unset, the review routes answer 404 (no drafts here).",
    )
    temporal_namespace: str = Field(default="default", min_length=1, description="Temporal namespace.")
    drafts_dir: Path = Field(
        default=Path(".loopline/drafts"),
        description="The draft store the promotion worker writes (its LOOPLINE_DRAFTS_DIR).",
    )
    event_keys_file: Path = Field(
        default=Path(".loopline/keys/bridge.json"),
        description="This bridge's own event signing key file (for `source`; `loopline/streams/event_keys.py`): "
        "set and missing, the bridge refuses to start; the default is made by `loopline up`.",
    )
    checkpoint_key: SecretStr | None = Field(
        default=None,
        description="Ed25519 seed (base64, `loopline audit keygen`) signing checkpoints of the stream heads; "
        "unset: no checkpoints.",
    )
    checkpoint_dir: Path = Field(
        default=Path(".loopline/checkpoints"),
        description="Where signed checkpoints go: outside the archive (in production, storage nobody rewrites).",
    )
    checkpoint_interval_s: float = Field(default=60.0, gt=0, description="Seconds between checkpoints.")
    drain_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="On SIGTERM or SIGINT: how long running episodes may take to finish before the rest "
        "are closed as interrupted.",
    )
    release_db_url: str | None = Field(
        default=None,
        description="The adapter release store (`loopline adapters --db-url`); set, the bridge routes "
        "episodes to the release's champion and canary by their served names (policy `openai`).",
    )
    release_check_s: float = Field(
        default=2.0, gt=0, le=3600, description="Seconds between looks at the release store's routing."
    )
    kafka: KafkaSettings = Field(default_factory=KafkaSettings)

    @model_validator(mode="after")
    def _domain_defaults(self) -> BridgeSettings:
        if self.domain not in DOMAINS.names():
            raise ValueError(f"domain {self.domain!r} is not registered; known: {', '.join(DOMAINS.names())}")
        # The event source and the model name follow the domain unless set.
        self.source = self.source or f"loopline://bridge/{self.domain}"
        self.policy_model = self.policy_model or f"loopline-{self.domain}"
        return self

    @model_validator(mode="after")
    def _release_needs_a_served_policy(self) -> BridgeSettings:
        if self.release_db_url is not None and self.policy != "openai":
            raise ValueError(
                "LOOPLINE_BRIDGE_RELEASE_DB_URL routes to served adapters: set LOOPLINE_BRIDGE_POLICY=openai"
            )
        return self

    @model_validator(mode="after")
    def _no_placeholders_outside_dev(self) -> BridgeSettings:
        if self.environment in ("dev", "test"):
            return self
        if not self.token_digests:
            raise ValueError(
                "LOOPLINE_BRIDGE_TOKEN_DIGESTS must be set outside dev/test (SHA-256 of each token)"
            )
        if self.vault_key is None:
            raise ValueError("LOOPLINE_BRIDGE_VAULT_KEY must be set outside dev/test")
        refuse_dev_tokens(self.token_digests, DEV_TOKENS, self.environment)
        require_given(self, ["db_url", "state_dir"], "LOOPLINE_BRIDGE_", self.environment)
        require_given(self.kafka, ["bootstrap_servers", "embedded"], "LOOPLINE_KAFKA_", self.environment)
        require_keyring(self.event_keys_file, "LOOPLINE_BRIDGE_EVENT_KEYS_FILE", self.environment)
        return self

    def resolved_vault_url(self) -> str:
        return self.vault_url or f"sqlite:///{self.state_dir / 'vault.db'}"

    # -- serving trust (issue 27): the policy server's fingerprints, canary keying, fair queues --
    release_verify_fingerprints: bool = Field(
        default=True,
        description="Route to a release's adapter only when the policy server reports the fingerprint "
        "the release store registered for its served name (`GET /v1/models`, as `loopline serve-policy` "
        "answers); production refuses it off.",
    )
    max_episodes_per_caller: int = Field(
        default=16,
        ge=1,
        le=10_000,
        description="Episodes one caller may have running or queued at once; past it `POST /v1/episodes` "
        "answers 429.",
    )
    canary_secret: SecretStr | None = Field(
        default=None,
        description="Keys the canary's work-item buckets (HMAC), so no submitter can choose its arm; 16+ "
        "characters, shared by every bridge replica; `loopline up` makes one. Unset in dev/test: a "
        "random one per process.",
    )

    @model_validator(mode="after")
    def _serving_trust_in_production(self) -> BridgeSettings:
        if self.environment != "production":
            return self
        if not self.release_verify_fingerprints:
            raise ValueError("LOOPLINE_BRIDGE_RELEASE_VERIFY_FINGERPRINTS cannot be off in production")
        return self

    @model_validator(mode="after")
    def _canary_secret_outside_dev(self) -> BridgeSettings:
        if self.canary_secret is not None and len(self.canary_secret.get_secret_value()) < 16:
            raise ValueError("LOOPLINE_BRIDGE_CANARY_SECRET needs at least 16 characters")
        if self.canary_secret is None and self.environment not in ("dev", "test"):
            raise ValueError(
                "LOOPLINE_BRIDGE_CANARY_SECRET must be set outside dev/test (16+ random characters)"
            )
        return self

    def canary_key(self) -> bytes:
        """The bytes that key canary buckets: the configured secret, or in dev/test a random one."""
        if self.canary_secret is not None:
            return self.canary_secret.get_secret_value().encode()
        if self.environment not in ("dev", "test"):
            raise ValueError("LOOPLINE_BRIDGE_CANARY_SECRET must be set outside dev/test")
        return secrets.token_bytes(32)

    # Strong audit by default (issue 27): the checkpoint key `loopline up` makes, required outside dev/test.
    checkpoint_key_file: Path = Field(
        default=Path(".loopline/keys/checkpoint-bridge.key"),
        description="File with the Ed25519 seed (base64) signing checkpoints, used when `checkpoint_key` "
        "is unset; `loopline up` makes the default. Set and missing, the bridge refuses to start; "
        "outside dev/test a checkpoint key is required.",
    )
    checkpoint_topic: str | None = Field(
        default=CHECKPOINTS_TOPIC,
        min_length=1,
        description="Kafka topic each checkpoint also goes to, outside the archive's host "
        "(`bridge/audit/anchor.py`; `loopline bridge serve` creates it); None: files only.",
    )

    @model_validator(mode="after")
    def _checkpoints_outside_dev(self) -> BridgeSettings:
        if self.environment not in ("dev", "test") and self.checkpoint_key is None:
            require_keyring(self.checkpoint_key_file, "LOOPLINE_BRIDGE_CHECKPOINT_KEY_FILE", self.environment)
        return self

    def resolved_checkpoint_key(self) -> SecretStr | None:
        """The checkpoint signing seed: `checkpoint_key`, else the file's; None only in dev/test
        when the default file is absent (no `loopline up`). A file that was set must be there."""
        if self.checkpoint_key is not None:
            return self.checkpoint_key
        if self.checkpoint_key_file.is_file():
            return SecretStr(self.checkpoint_key_file.read_text().strip())
        if "checkpoint_key_file" in self.model_fields_set or self.environment not in ("dev", "test"):
            raise ValueError(
                f"no checkpoint key at {self.checkpoint_key_file.absolute()} (LOOPLINE_BRIDGE_CHECKPOINT_KEY_FILE): "
                "`loopline up` makes the embedded stack's, `loopline audit keygen` prints one"
            )
        return None
