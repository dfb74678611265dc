"""Check that Loopline's generic top-level package names resolve inside this repository.

`schemas`, `adapters`, `envs`, ... are common names; if another installed distribution shadowed one
of them, imports would silently load foreign code. `make lint` runs this; a test does too.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PACKAGES = ("schemas", "adapters", "engine", "envs", "bridge", "training", "workflows", "loopline")
REPO_ROOT = Path(__file__).resolve().parents[2]


def foreign_packages(root: Path = REPO_ROOT) -> dict[str, str]:
    """Package name → where it resolves, for each one that does not resolve inside `root`."""
    foreign: dict[str, str] = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec else None
        if origin is None or not Path(origin).resolve().is_relative_to(root):
            foreign[name] = origin or "(not importable)"
    return foreign


def main() -> int:
    foreign = foreign_packages()
    for name, where in foreign.items():
        print(f"{name}: resolves to {where}, not inside {REPO_ROOT}", file=sys.stderr)
    if not foreign:
        print(f"all {len(PACKAGES)} top-level packages resolve inside {REPO_ROOT}")
    return 1 if foreign else 0


if __name__ == "__main__":
    raise SystemExit(main())
