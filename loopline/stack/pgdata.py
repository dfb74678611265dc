"""The stack's own Postgres cluster (`loopline up --sql postgres`): its data folder and its database.

The cluster lives in `<state>/data/postgres`, made by `initdb` on the first `up` and kept across
`down` like the broker's log. Under root it belongs to the `postgres` user (else `nobody`), which
must be able to reach it: every folder above it needs the search (x) bit for that user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from pathlib import Path

from loopline.stack import postgres as pg

DATABASE = "loopline"


def data_dir(state_data: Path) -> Path:
    """Where the cluster lives inside the state folder's `data/`."""
    return state_data / "postgres"


def _blocked_ancestor(path: Path, user: str) -> Path | None:
    """The first folder above `path` that `user` cannot enter, or None."""
    entry = pwd.getpwnam(user)
    groups = {entry.pw_gid, *os.getgrouplist(user, entry.pw_gid)}
    for folder in reversed(path.parents):
        info = folder.stat()
        if info.st_uid == entry.pw_uid:
            allowed = info.st_mode & stat.S_IXUSR
        elif info.st_gid in groups:
            allowed = info.st_mode & stat.S_IXGRP
        else:
            allowed = info.st_mode & stat.S_IXOTH
        if not allowed:
            return folder
    return None


def prepare(bin_dir: Path, data: Path) -> bool:
    """Make the cluster in `data` unless it is there; True when it was made now."""
    if (data / "PG_VERSION").exists():
        return False
    _, owner = pg.privilege_drop()
    if owner is not None:
        blocked = _blocked_ancestor(data, owner)
        if blocked is not None:
            raise pg.PostgresUnavailable(
                f"Postgres runs as the `{owner}` user, which cannot enter {blocked}; put the state folder "
                f"where it can (LOOPLINE_STATE_DIR), or `chmod o+x {blocked}`"
            )
    if data.exists() and any(data.iterdir()):
        raise pg.PostgresUnavailable(
            f"{data} holds files but no Postgres cluster (an interrupted initdb?); delete it and run `up` again"
        )
    data.mkdir(parents=True, exist_ok=True)
    data.chmod(0o700)
    if owner is not None:
        shutil.chown(data, user=owner, group=pwd.getpwnam(owner).pw_gid)
    pg.run_initdb(bin_dir, data, durable=True)
    return True


def ready(port: int) -> str | None:
    """None once the server takes connections and the archive's database exists, else why not."""
    problem = pg.ping(port)
    if problem is not None:
        return problem
    pg.ensure_database(port, DATABASE)
    return None


def url(port: int) -> str:
    """The archive's SQLAlchemy URL on the stack's cluster."""
    return pg.sqlalchemy_url(port, DATABASE)
