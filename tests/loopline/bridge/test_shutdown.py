"""SIGTERM and SIGINT drain the bridge; after a SIGKILL the next start closes what was left open.

Each test runs a real bridge API process (`drain_child.py`: uvicorn, sim tools, a slow scripted
policy, a real outbox) and reads its outbox afterwards: every episode it started ends with
`episode.ended` or `episode.interrupted`, its chain whole. Nothing is cut silently.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.capture import SqliteOutbox
from schemas import verify_chain

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]
CHILD = Path(__file__).with_name("drain_child.py")
ITEM = {"domain": "rcm", "kind": "denial", "item_id": "CLM-1001", "instructions": "Work it.",
        "payload": {"claim_id": "CLM-1001"}}  # fmt: skip
CLOSERS = {"loopline.episode.ended.v1", "loopline.episode.interrupted.v1"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Bridge:
    def __init__(self, state: Path, drain_s: float, turn_s: float, steps: int, mode: str = "") -> None:
        self.port = _free_port()
        argv = [sys.executable, str(CHILD), str(state), str(self.port), str(drain_s), str(turn_s), str(steps)]
        argv += [mode] if mode else []
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
        assert self.proc.stdout is not None
        self.recovered = json.loads(self.proc.stdout.readline())["recovered"]
        assert self.proc.stdout.readline().strip() == b"ready"
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=10,
                                   headers={"Authorization": "Bearer agent-token"})  # fmt: skip

    def start(self, n: int) -> list[str]:
        ids = []
        for _ in range(n):
            answer = self.client.post("/v1/episodes", json={"work_item": ITEM, "wait": False})
            assert answer.status_code == 202, answer.text
            ids.append(answer.json()["episode_id"])
        return ids

    def stop(self, sig: int, timeout_s: float = 60) -> dict[str, Any]:
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=timeout_s)
        assert self.proc.returncode == 0, err.decode()[-2000:]
        return dict(json.loads(out.decode().strip().splitlines()[-1]))


def _last_types(state: Path, ids: list[str]) -> dict[str, str]:
    outbox = SqliteOutbox(state / "outbox.db")
    try:
        for episode_id in ids:
            assert verify_chain(outbox.events(episode_id)) is None
        return {e: outbox.events(e)[-1]["type"] for e in ids}
    finally:
        outbox.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_lets_running_episodes_finish_within_the_deadline(tmp_path: Path, sig: int) -> None:
    bridge = Bridge(tmp_path, drain_s=20, turn_s=0.1, steps=4)
    ids = bridge.start(3)
    time.sleep(0.3)
    report = bridge.stop(sig)
    assert report["signals"] == [sig] and report["finished"] == 3 and report["interrupted"] == []
    assert set(_last_types(tmp_path, ids).values()) == {"loopline.episode.ended.v1"}


def test_episodes_still_running_at_the_deadline_are_closed_as_interrupted(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path, drain_s=0.5, turn_s=0.4, steps=50)
    ids = bridge.start(3)
    opened = bridge.client.post("/v1/gateway/episodes", json={"work_item": ITEM}).json()["episode_id"]
    time.sleep(0.5)
    started = time.monotonic()
    report = bridge.stop(signal.SIGTERM)
    assert time.monotonic() - started < 15  # the deadline holds; a cut-off episode stops at its next step
    assert sorted(report["interrupted"]) == sorted(ids) and report["sessions_closed"] == 1
    last = _last_types(tmp_path, [*ids, opened])
    assert {last[e] for e in ids} == {"loopline.episode.interrupted.v1"}
    assert last[opened] == "loopline.episode.ended.v1"


def test_after_a_sigkill_the_next_start_closes_every_open_episode_as_interrupted(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path, drain_s=5, turn_s=0.3, steps=50)
    ids = bridge.start(3)
    time.sleep(1.0)
    bridge.proc.kill()
    bridge.proc.communicate(timeout=30)
    assert not (set(_last_types(tmp_path, ids).values()) & CLOSERS)  # left open by the kill
    again = Bridge(tmp_path, drain_s=5, turn_s=0.1, steps=1)
    assert sorted(again.recovered) == sorted(ids)
    again.stop(signal.SIGTERM)
    assert set(_last_types(tmp_path, ids).values()) == {"loopline.episode.interrupted.v1"}
