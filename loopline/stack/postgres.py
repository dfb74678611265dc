"""A throwaway Postgres cluster from the distribution's binaries, for contract tests and demos.

`initdb` and `postgres` refuse to run as root, so under root they run as the `postgres` user via
`setpriv`, which also sets the parent-death signal after dropping privileges: if the starting
process dies, the cluster goes with it. Durability is switched off (fsync, full-page writes): the
cluster lives for one session.
"""

from __future__ import annotations

import contextlib
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


class PostgresUnavailable(StackError):
    """No usable Postgres binaries (or no unprivileged user to run them as)."""


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in path.parent.parent.name.split(".") if part.isdigit())


def find_bin_dir() -> Path:
    """The newest `/usr/lib/postgresql/<v>/bin` (Debian, Ubuntu), else the folder of `initdb` on PATH."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=_version_key)
    if candidates:
        return candidates[-1].parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresUnavailable(
        "Postgres not found: no initdb under /usr/lib/postgresql/*/bin or on PATH; install postgresql"
    )


def unavailable_reason() -> str | None:
    """Why no throwaway cluster can start here, or None when one can."""
    try:
        find_bin_dir()
        _privilege_drop()
    except PostgresUnavailable as exc:
        return str(exc)
    return None


def _privilege_drop() -> tuple[list[str], str | None]:
    """(command prefix, owner) to run Postgres unprivileged; empty when we are not root."""
    if os.geteuid() != 0:
        return [], None
    setpriv = shutil.which("setpriv")
    try:
        pwd.getpwnam(_SUPERUSER)
    except KeyError:
        setpriv = None
    if setpriv is None:
        raise PostgresUnavailable("running as root without setpriv and a `postgres` user to run Postgres as")
    return [setpriv, f"--reuid={_SUPERUSER}", f"--regid={_SUPERUSER}", "--init-groups"], _SUPERUSER


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
        return f"postgresql+psycopg://{_SUPERUSER}@{_HOST}:{self.port}/{database}"

    def _admin_dsn(self) -> str:
        return f"host={_HOST} port={self.port} user={_SUPERUSER} dbname=postgres"

    @contextlib.contextmanager
    def database(self) -> Iterator[str]:
        """A new empty database for the block, dropped (connections and all) afterwards."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self._admin_dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield self.url(name)
        finally:
            with psycopg.connect(self._admin_dsn(), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _wait_ready(cluster: PostgresCluster, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    import psycopg

    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise StackError(f"postgres exited (code {proc.returncode}): {' | '.join(tail_lines(log, 3))}")
        try:
            with psycopg.connect(cluster._admin_dsn(), connect_timeout=1):
                return
        except psycopg.OperationalError as exc:
            if time.monotonic() > deadline:
                raise StackError(f"postgres not ready after {timeout_s:.0f} s: {exc}") from exc
        time.sleep(0.05)


@contextlib.contextmanager
def throwaway_cluster(timeout_s: float = 30.0) -> Iterator[PostgresCluster]:
    """initdb into a temporary folder, start postgres on a free loopback port, and remove it all after."""
    bin_dir = find_bin_dir()
    prefix, owner = _privilege_drop()
    # Not under pytest's tmp_path: that folder is root-only (0700) and the postgres user must enter.
    root = Path(tempfile.mkdtemp(prefix="loopline-pg-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        if owner is not None:
            shutil.chown(root, user=owner)
        data, log = root / "data", root / "postgres.log"
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", _SUPERUSER, "-A", "trust", "-E", "UTF8"]
        done = subprocess.run(
            [*prefix, *initdb, "--no-sync", "--no-instructions"], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise StackError(f"initdb failed: {done.stderr.strip().splitlines()[-1:]}")
        cluster = PostgresCluster(port=_free_port(), root=root)
        server = [
            str(bin_dir / "postgres"),
            "-D",
            str(data),
            "-p",
            str(cluster.port),
            "-h",
            _HOST,
            "-k",
            str(root),
        ]
        server += [
            "-F",
            "-c",
            "full_page_writes=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "max_connections=200",
        ]
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
        _wait_ready(cluster, proc, log, timeout_s)
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
