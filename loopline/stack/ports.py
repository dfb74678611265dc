"""Loopback ports: which the stack needs, whether they are free, and picking free ones (`--ports auto`).

SeaweedFS serves gRPC on every HTTP port + 10000 (its `weed mini` admin worker even ignores an
explicit `-admin.port.grpc` and dials admin + 10000), so a SeaweedFS port is only usable when its
+10000 twin is free too.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterable
from pathlib import Path

from loopline.stack.errors import PortTaken
from loopline.stack.settings import StackPorts

HOST = "127.0.0.1"
GRPC_OFFSET = 10_000

#: StackPorts field -> what listens there, for error messages.
PORT_OWNERS: dict[str, str] = {
    "kafka": "the Kafka broker (tansu)",
    "temporal": "the Temporal frontend",
    "temporal_ui": "the Temporal Web UI",
    "s3": "the SeaweedFS S3 gateway",
    "seaweed_master": "the SeaweedFS master",
    "seaweed_volume": "the SeaweedFS volume server",
    "seaweed_filer": "the SeaweedFS filer",
    "seaweed_admin": "the SeaweedFS admin server",
    "postgres": "Postgres",
}
_LOWEST = 11_000  # above the defaults and other well-known dev ports
SEAWEED_FIELDS = ("s3", "seaweed_master", "seaweed_volume", "seaweed_filer", "seaweed_admin")


def needed_fields(*, with_seaweed: bool, with_ui: bool, with_postgres: bool = False) -> list[str]:
    """The StackPorts fields a stack with these parts binds."""
    fields = ["kafka", "temporal"]
    if with_ui:
        fields.append("temporal_ui")
    if with_seaweed:
        fields.extend(SEAWEED_FIELDS)
    if with_postgres:
        fields.append("postgres")
    return fields


def port_is_free(port: int, host: str = HOST) -> bool:
    """True when a server could bind `host:port` now.

    SO_REUSEADDR is set as the servers set it, so a port held only by TIME_WAIT sockets of a stack
    that just stopped counts as free, while a live listener does not.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _holder(port: int) -> str:
    """' by pid N (name)' for the listener on `port`, or '' when it cannot be seen."""
    try:
        import psutil

        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
                return f" by pid {conn.pid} ({psutil.Process(conn.pid).name()})"
    except Exception:  # best effort only: the message is still useful without the holder
        return ""
    return ""


def _ports_to_check(field: str, port: int) -> list[int]:
    return [port, port + GRPC_OFFSET] if field in SEAWEED_FIELDS else [port]


def ensure_free(ports: StackPorts, fields: Iterable[str]) -> None:
    """Raise `PortTaken` with a one-line fix for the first taken port among `fields`."""
    for field in fields:
        for port in _ports_to_check(field, getattr(ports, field)):
            if not port_is_free(port):
                env = f"LOOPLINE_PORTS__{field.upper()}"
                raise PortTaken(
                    f"port {port} for {PORT_OWNERS[field]} on {HOST} is taken{_holder(port)}; "
                    f"stop that process, set {env}, or run `loopline up --ports auto`"
                )


def all_free(ports: StackPorts, fields: Iterable[str], wait_s: float = 0.0) -> bool:
    """True when every port among `fields` (and SeaweedFS's twins) is free, or becomes free within
    `wait_s` seconds (processes just stopped can hold their listeners a moment after they exit)."""
    wanted = [p for field in fields for p in _ports_to_check(field, getattr(ports, field))]
    deadline = time.monotonic() + wait_s
    while True:
        if all(port_is_free(p) for p in wanted):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def _ephemeral_floor() -> int:
    """The lowest port the kernel hands to outgoing connections (Linux; 32768 elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def pick_free_ports(fields: Iterable[str], rng: random.Random | None = None) -> StackPorts:
    """A StackPorts whose `fields` are free loopback ports, all distinct (others keep defaults).

    Ports (and SeaweedFS's +10000 twins) stay below the kernel's ephemeral range: a port chosen
    there can be taken by any outgoing connection between our check and the server's bind, and
    SeaweedFS alone opens dozens of those while it starts.
    """
    rng = rng or random.Random()
    ceiling = max(_ephemeral_floor(), _LOWEST + 2 * GRPC_OFFSET)
    taken: set[int] = set()
    chosen: dict[str, int] = {}
    for field in fields:
        top = ceiling - GRPC_OFFSET if field in SEAWEED_FIELDS else ceiling
        for _ in range(500):
            port = rng.randrange(_LOWEST, top)
            wanted = _ports_to_check(field, port)
            if taken.isdisjoint(wanted) and all(port_is_free(p) for p in wanted):
                chosen[field] = port
                taken.update(wanted)
                break
        else:
            raise PortTaken(f"found no free port on {HOST} for {PORT_OWNERS[field]}; free some ports")
    defaults = StackPorts().model_dump()
    # Defaults of unused fields may clash with a chosen port; StackPorts insists they are distinct.
    for field, port in defaults.items():
        if field not in chosen:
            while port in taken:
                port += 1
            chosen[field] = port
            taken.add(port)
    return StackPorts(**chosen)
