"""What produced an artifact: the code's commit and content hashes of files."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]


def code_version(repo: Path = _REPO) -> str:
    """The git commit of the code, with `+dirty` when `training/` has uncommitted changes;
    `unknown` outside a git checkout."""
    try:
        head = _git(repo, "rev-parse", "HEAD")
        dirty = _git(repo, "status", "--porcelain", "--untracked-files=no", "--", "training")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=10)
    return done.stdout.strip()


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_hash(root: Path) -> str:
    """SHA-256 over the relative paths and bytes of every file under `root`, in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + file_hash(path).encode() + b"\n")
    return digest.hexdigest()
