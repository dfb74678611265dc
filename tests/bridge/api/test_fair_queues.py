"""One caller cannot fill the episode queue: past its cap of running and queued episodes a start
is a 429 that says so, other callers still start at once, and the slots free as runs end."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from engine import ScriptedPolicy, say
from tests.bridge.api.conftest import serve_bridge

pytestmark = pytest.mark.integration

ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}


def test_a_caller_past_its_cap_is_told_429_while_another_still_starts(tmp_path: Path) -> None:
    gate = threading.Event()

    def held(_messages: object) -> object:
        gate.wait(30)
        return say("done")

    policy = ScriptedPolicy(held)  # type: ignore[arg-type]
    with serve_bridge(tmp_path, policy, max_episodes_per_caller=3) as bridge:
        flood, other = bridge.client("agent-token"), bridge.client("other-agent-token")
        with flood, other:
            started = [flood.post("/v1/episodes", json={"work_item": ITEM, "wait": False}) for _ in range(3)]
            assert [r.status_code for r in started] == [202, 202, 202]
            refused = flood.post("/v1/episodes", json={"work_item": ITEM, "wait": False})
            assert refused.status_code == 429
            assert "3 episodes running or queued" in refused.json()["detail"]
            assert refused.headers["retry-after"] == "1"
            assert other.post("/v1/episodes", json={"work_item": ITEM, "wait": False}).status_code == 202
            gate.set()
            ids = [r.json()["episode_id"] for r in started]
            deadline = time.monotonic() + 30
            while any(flood.get(f"/v1/runs/{i}").json()["status"] == "running" for i in ids):
                assert time.monotonic() < deadline, "the held runs never finished"
                time.sleep(0.05)
            assert flood.post("/v1/episodes", json={"work_item": ITEM, "wait": True}).status_code == 200
