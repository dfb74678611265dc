"""Every top-level package name resolves to this repository, not to a same-named distribution."""

from __future__ import annotations

from pathlib import Path

from loopline.devtools.check_imports import PACKAGES, foreign_packages


def test_every_top_level_package_resolves_inside_the_repo() -> None:
    assert foreign_packages() == {}


def test_a_package_outside_the_root_is_reported(tmp_path: Path) -> None:
    assert set(foreign_packages(tmp_path)) == set(PACKAGES)
