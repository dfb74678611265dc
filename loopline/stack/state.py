"""The state folder (`.loopline/` by default): where everything of one stack lives.

    stack.json          the state file: mode, endpoints, ports, and a record per process
    ports.json          the ports of the last embedded stack, kept after `down`: `--ports auto`
                        reuses them when free, so clients keep their endpoints across restarts
    stack.env           the endpoints as LOOPLINE_* variables for the bridge, the stream worker and
                        the CLI, with the bridge's canary secret (owner-only):
                        `set -a; . .loopline/stack.env; set +a`
    canary-secret       the bridge's canary bucket key (LOOPLINE_BRIDGE_CANARY_SECRET), made once per folder
    run/<name>.pid      one pid per process, for people and shell scripts
    logs/<name>.log     each process's stdout and stderr
    data/               SeaweedFS volumes (the durable broker log), temporal.db, postgres/ (`--sql postgres`)
    s3-credentials.json the S3 key pair shared by SeaweedFS and Tansu, made once per folder

`stack.json` is the source of truth; the pid files mirror it.
"""

from __future__ import annotations

import json
import os
import secrets
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from loopline.stack.errors import StackStateError
from loopline.stack.processes import ProcessRecord
from loopline.stack.settings import BrokerStorage, StackPorts

STATE_VERSION = 1
COMPONENTS = ("seaweedfs", "tansu", "temporal", "postgres")


class Endpoints(BaseModel):
    """Where clients connect."""

    model_config = ConfigDict(frozen=True)

    bootstrap_servers: str
    temporal_address: str
    temporal_ui: str | None = None
    s3: str | None = None
    sql_url: str | None = None
    """SQLAlchemy URL of the archive's Postgres database when the stack runs one (`--sql postgres`)."""


class StackState(BaseModel):
    """The content of `stack.json`."""

    model_config = ConfigDict(frozen=True)

    version: int = STATE_VERSION
    mode: Literal["embedded", "external"]
    broker_storage: BrokerStorage | None = None
    started_at: datetime
    endpoints: Endpoints
    ports: StackPorts | None = None
    processes: dict[str, ProcessRecord] = {}


def client_env(state: StackState) -> dict[str, str]:
    """The stack's endpoints as the variables the bridge (`LOOPLINE_BRIDGE_*`), the stream worker and
    `loopline audit` (`LOOPLINE_DB_URL`) and every Kafka client (`LOOPLINE_KAFKA_*`) read."""
    env = {
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": state.endpoints.bootstrap_servers,
        "LOOPLINE_KAFKA_EMBEDDED": "true" if state.mode == "embedded" else "false",
        "LOOPLINE_TEMPORAL_ADDRESS": state.endpoints.temporal_address,
    }
    if state.endpoints.sql_url is not None:
        env["LOOPLINE_DB_URL"] = state.endpoints.sql_url
        env["LOOPLINE_BRIDGE_DB_URL"] = state.endpoints.sql_url
    return env


class S3Credentials(BaseModel):
    """The key pair SeaweedFS is started with and Tansu signs with."""

    access_key_id: str
    secret_access_key: str


class StackLayout:
    """Paths inside one state folder."""

    def __init__(self, state_dir: Path) -> None:
        self.root = state_dir.expanduser().absolute()

    @property
    def state_file(self) -> Path:
        return self.root / "stack.json"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def pid_file(self, name: str) -> Path:
        return self.root / "run" / f"{name}.pid"

    def log_file(self, name: str) -> Path:
        return self.root / "logs" / f"{name}.log"

    def ensure(self) -> None:
        for folder in (self.root / "run", self.root / "logs", self.data_dir):
            folder.mkdir(parents=True, exist_ok=True)

    def read(self) -> StackState | None:
        """The recorded stack, or None when there is none."""
        try:
            raw = self.state_file.read_text()
        except FileNotFoundError:
            return None
        try:
            return StackState.model_validate_json(raw)
        except ValidationError as exc:
            raise StackStateError(
                f"{self.state_file} is not a Loopline state file ({exc.error_count()} errors); "
                "stop its processes by hand and delete it"
            ) from exc

    def write(self, state: StackState) -> None:
        """Write `stack.json` and the pid files; the rename makes a half-written state impossible."""
        self.ensure()
        tmp = self.state_file.with_suffix(".json.tmp")
        tmp.write_text(state.model_dump_json(indent=2))
        os.replace(tmp, self.state_file)
        for name, record in state.processes.items():
            self.pid_file(name).write_text(f"{record.pid}\n")
        if state.ports is not None:
            self.ports_file.write_text(state.ports.model_dump_json(indent=2))
        env = client_env(state) | {"LOOPLINE_BRIDGE_CANARY_SECRET": self.canary_secret()}
        fd = os.open(self.env_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds a secret
        with os.fdopen(fd, "w") as out:
            out.write("".join(f"{key}={value}\n" for key, value in env.items()))
        os.chmod(self.env_file, 0o600)  # also when an older file was made readable by others

    @property
    def env_file(self) -> Path:
        return self.root / "stack.env"

    @property
    def ports_file(self) -> Path:
        return self.root / "ports.json"

    def last_ports(self) -> StackPorts | None:
        """The ports the last embedded stack in this folder used, or None (none, or unreadable)."""
        try:
            return StackPorts.model_validate_json(self.ports_file.read_text())
        except (OSError, ValidationError):
            return None

    def clear(self) -> None:
        """Forget the stack (after `down`); logs and data stay for the next `up`."""
        for name in COMPONENTS:
            self.pid_file(name).unlink(missing_ok=True)
        self.state_file.unlink(missing_ok=True)
        self.env_file.unlink(missing_ok=True)

    def stray_pid_files(self) -> list[str]:
        """Components with a pid file but no state file: what a crashed `up` leaves behind."""
        return [name for name in COMPONENTS if self.pid_file(name).exists()]

    def canary_secret(self) -> str:
        """This folder's canary bucket secret (`LOOPLINE_BRIDGE_CANARY_SECRET`), made on first use,
        so every bridge of the stack buckets work items alike and no submitter can predict them."""
        path = self.root / "canary-secret"
        if path.exists():
            return path.read_text().strip()
        secret = secrets.token_urlsafe(32)
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secret + "\n")
        return secret

    def s3_credentials(self) -> S3Credentials:
        """This folder's S3 key pair, made on first use; SeaweedFS keeps the identity it was given."""
        path = self.root / "s3-credentials.json"
        if path.exists():
            return S3Credentials.model_validate_json(path.read_text())
        creds = S3Credentials(access_key_id="loopline", secret_access_key=secrets.token_hex(20))
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(creds.model_dump(), out)
        return creds
