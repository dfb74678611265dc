"""Adding the parcel desk touched nothing outside this folder: no product module, no other test,
no configuration names it (its one registration line is `conftest.py`, here)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NAMES = re.compile(r"\bparcels?\b|tests[./]toydomain", re.IGNORECASE)
PRODUCT = ("schemas", "adapters", "engine", "envs", "bridge", "training", "workflows", "loopline")


def _code_outside_this_folder() -> list[Path]:
    files = [p for package in PRODUCT for p in (ROOT / package).rglob("*.py")]
    files += [p for p in (ROOT / "tests").rglob("*.py") if HERE not in p.parents]
    return [*files, ROOT / "pyproject.toml", ROOT / ".importlinter"]


def test_no_module_outside_the_folder_names_the_parcel_desk() -> None:
    files = _code_outside_this_folder()
    assert len(files) > 500  # the scan sees the whole tree
    naming = [str(p.relative_to(ROOT)) for p in files if NAMES.search(p.read_text(encoding="utf-8"))]
    assert naming == []
