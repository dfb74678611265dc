"""How each server of the embedded stack is started: its command line and environment.

Everything binds 127.0.0.1 only. Flags are always given explicitly, so nothing the user's
environment or an earlier run left behind changes what starts.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from loopline.stack import postgres as pg
from loopline.stack.ports import HOST
from loopline.stack.settings import BrokerStorage, StackPorts
from loopline.stack.state import S3Credentials, StackLayout

BUCKET = "tansu"
S3_REGION = "us-east-1"
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes; longer state dirs keep SeaweedFS's /tmp default


@dataclass(frozen=True)
class ComponentSpec:
    """One process to start."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stop_signal: signal.Signals = signal.SIGTERM
    user: str | None = None  # run as this user (Postgres under root)


def _base_env(extra: Mapping[str, str]) -> dict[str, str]:
    # AWS_* from the user's shell would silently point SeaweedFS or Tansu elsewhere.
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env.update(extra)
    return env


def seaweedfs(binary: Path, layout: StackLayout, ports: StackPorts, creds: S3Credentials) -> ComponentSpec:
    """`weed mini`: master, volume, filer and S3 gateway in one process, creating the bucket.

    WebDAV, the admin UI and the Iceberg/Lance catalogs are switched off; telemetry too, since
    nothing here may talk to the internet.
    """
    data = layout.data_dir / "seaweedfs"
    data.mkdir(parents=True, exist_ok=True)
    # `weed mini` saves its flags to mini.options and reloads them on the next start, where they
    # fill in every flag not given (an old gRPC port, say). Our flags are the only truth.
    (data / "mini.options").unlink(missing_ok=True)
    argv = [
        str(binary),
        "mini",
        f"-dir={data}",
        f"-ip={HOST}",
        f"-ip.bind={HOST}",
        f"-bucket={BUCKET}",
        f"-master.port={ports.seaweed_master}",
        f"-volume.port={ports.seaweed_volume}",
        f"-filer.port={ports.seaweed_filer}",
        f"-s3.port={ports.s3}",
        f"-admin.port={ports.seaweed_admin}",
        "-admin.ui=false",
        "-webdav=false",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        "-master.telemetry=false",
        # The default 1 s pre-stop pause only matters behind a load balancer; it slows `down`.
        "-volume.preStopSeconds=0",
    ]
    socket_path = layout.root / "run" / "s3.sock"
    if len(str(socket_path)) <= _MAX_SOCKET_PATH:
        argv.append(f"-s3.localSocket={socket_path}")
    env = _base_env(
        {"AWS_ACCESS_KEY_ID": creds.access_key_id, "AWS_SECRET_ACCESS_KEY": creds.secret_access_key}
    )
    return ComponentSpec(name="seaweedfs", argv=argv, env=env)


def storage_url(storage: BrokerStorage) -> str:
    """Tansu's `--storage-engine` for the chosen storage."""
    return f"s3://{BUCKET}/" if storage == "s3" else "memory://tansu/"


def tansu(
    binary: Path, ports: StackPorts, storage: BrokerStorage, creds: S3Credentials | None
) -> ComponentSpec:
    """The Tansu broker on `s3://` (SeaweedFS, durable) or `memory://`."""
    listener = f"tcp://{HOST}:{ports.kafka}"
    argv = [
        str(binary),
        "broker",
        f"--listener-url={listener}",
        f"--advertised-listener-url={listener}",
        f"--storage-engine={storage_url(storage)}",
    ]
    extra: dict[str, str] = {}
    if storage == "s3":
        if creds is None:
            raise ValueError("the s3 storage engine needs S3 credentials")
        # Tansu's object store reads the standard AWS variables; HTTP is fine on loopback.
        extra = {
            "AWS_ACCESS_KEY_ID": creds.access_key_id,
            "AWS_SECRET_ACCESS_KEY": creds.secret_access_key,
            "AWS_ENDPOINT": f"http://{HOST}:{ports.s3}",
            "AWS_ALLOW_HTTP": "true",
            "AWS_DEFAULT_REGION": S3_REGION,
        }
    # SIGINT, not SIGTERM: on SIGTERM Tansu waits for every connected client to hang up, on SIGINT
    # it closes them and exits at once (docs/stack.md).
    return ComponentSpec(name="tansu", argv=argv, env=_base_env(extra), stop_signal=signal.SIGINT)


def temporal(binary: Path, layout: StackLayout, ports: StackPorts, *, ui: bool) -> ComponentSpec:
    """The Temporal CLI dev server, persisted in a SQLite file in the state folder."""
    argv = [
        str(binary),
        "server",
        "start-dev",
        "--ip",
        HOST,
        "--port",
        str(ports.temporal),
        "--db-filename",
        str(layout.data_dir / "temporal.db"),
        "--log-level",
        "warn",
    ]
    if ui:
        argv += ["--ui-port", str(ports.temporal_ui), "--ui-disable-news-fetch"]
    else:
        argv.append("--headless")
    return ComponentSpec(name="temporal", argv=argv, env=_base_env({}))


def postgres(bin_dir: Path, data: Path, ports: StackPorts) -> ComponentSpec:
    """Postgres on loopback TCP only, durable (fsync on): it holds the archive (`--sql postgres`).

    SIGINT is Postgres's fast shutdown; SIGTERM would wait for every client to disconnect.
    """
    _, owner = pg.privilege_drop()
    argv = pg.server_argv(bin_dir, data, ports.postgres, durable=True)
    return ComponentSpec(name="postgres", argv=argv, env=_base_env({}), stop_signal=signal.SIGINT, user=owner)
