"""The private copy an adapter is checked and loaded from, so the files vetted are the files read.

Checking an adapter's folder and then handing that folder to a loader leaves a gap: whoever can
write the folder can swap the weights after the fingerprint matched and before the model reads
them. So the server reads each defining file once, into a fresh folder only its own user can
open (mode 0700), and every check (fingerprint, safetensors header) and the load itself run on
that copy. Each file is opened without following a symlink and must, once open, still lie under
the adapter root, so a link swapped in after the path check is refused too.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from pathlib import Path

CHUNK = 1 << 20


class SnapshotError(ValueError):
    """An adapter file that cannot be copied as it must be (a link, not a regular file, outside the root)."""


def private_copy(folder: Path, names: tuple[str, ...], *, root: Path, into: Path) -> Path:
    """A new folder under `into` holding those of `names` that exist in `folder`, each read once.
    Raises `SnapshotError` for a file that is a link, not a regular file, or open outside `root`."""
    copy = Path(tempfile.mkdtemp(prefix="adapter-", dir=into))
    try:
        for name in names:
            _copy_one(folder / name, copy / name, root.resolve())
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    return copy


def private_root() -> Path:
    """A fresh folder, readable by this process's user only, to hold the server's copies; it is
    removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix="loopline-serve-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def _copy_one(source: Path, target: Path, root: Path) -> None:
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return
    except OSError as exc:  # ELOOP: the file is a symlink
        raise SnapshotError(f"{source} cannot be opened as a plain file ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SnapshotError(f"{source} is not a regular file")
        opened = _opened_path(fd)
        if opened is not None and not opened.is_relative_to(root):
            raise SnapshotError(f"{source} lies outside the adapter root {root} once opened ({opened})")
        with open(target, "xb") as dst:
            os.chmod(target, 0o600)
            shutil.copyfileobj(src, dst, CHUNK)


def _opened_path(fd: int) -> Path | None:
    """Where the open file `fd` really is (Linux's /proc), or None where that cannot be asked."""
    link = Path(f"/proc/self/fd/{fd}")
    try:
        return Path(os.readlink(link))
    except OSError:
        return None
