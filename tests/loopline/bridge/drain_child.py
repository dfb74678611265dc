"""A bridge API process for the shutdown tests: sim tools, a slow scripted policy, no broker.

    python tests/loopline/bridge/drain_child.py STATE_DIR PORT DRAIN_S TURN_S STEPS [write_off]

Serves until SIGTERM or SIGINT (printing `ready` once it listens), drains, prints the drain
report as JSON and exits 0. With `write_off`, each episode's first act is a `post_write_off` that
the live system never answers (a write in flight when the process is killed).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import httpx
from pydantic import BaseModel

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from bridge.api.app import create_app
from bridge.api.auth import Role, TokenTable
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import SqlEventArchive
from engine import EpisodeConfig, Message, PolicyReply, ScriptedPolicy, act, call, say
from loopline.bridge.app import rcm_services
from loopline.bridge.serve import drain, serve_until_signalled


class StallingWrites:
    """A backend whose `post_write_off` never answers: the write stays in flight."""

    def __init__(self, inner: SimBackend) -> None:
        self.inner = inner

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        if tool == "post_write_off":
            time.sleep(3600)
        return self.inner.invoke(tool, args)


WRITE_OFF = {"claim_id": "CLM-1001", "amount": 10.0, "reason_code": "contractual"}


def main(state: Path, port: int, drain_s: float, turn_s: float, steps: int, mode: str = "") -> None:
    capture = CaptureService.open(
        CaptureConfig(
            tenant="acme",
            source="loopline://bridge/drain-test",
            outbox_path=state / "outbox.db",
            vault_url=f"sqlite:///{state / 'vault.db'}",
            environment="test",
        )
    )
    print(
        json.dumps({"recovered": [e.episodeid for e in capture.close_interrupted("found open at start-up")]})
    )

    def script(messages: Sequence[Message]) -> PolicyReply:
        time.sleep(turn_s)
        if mode == "write_off":
            return act(call("post_write_off", WRITE_OFF))
        if sum(1 for m in messages if m.get("role") == "tool") < steps:
            return act(call("get_claim", {"claim_id": "CLM-1001"}))
        return say("done")

    archive = SqlEventArchive(f"sqlite:///{state / 'archive.db'}")
    archive.create_schema()
    backend = StallingWrites(SimBackend(seed_world())) if mode == "write_off" else SimBackend(seed_world())
    services = rcm_services(capture, Toolbox(RCM_TOOLS, backend), ScriptedPolicy(script),
                            EpisodeConfig(max_steps=steps + 2), archive)  # fmt: skip
    app = create_app(services, TokenTable.from_tokens({"agent-token": Role.AGENT}))

    def announce() -> None:
        for _ in range(200):
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                print("ready", flush=True)
                return
            except httpx.HTTPError:
                time.sleep(0.05)

    threading.Thread(target=announce, daemon=True).start()
    signals = serve_until_signalled(app, "127.0.0.1", port, grace_s=drain_s)
    report = drain(app, capture, services.executor, deadline_s=drain_s)
    print(json.dumps({"signals": signals, **asdict(report)}), flush=True)


if __name__ == "__main__":
    main(
        Path(sys.argv[1]),
        int(sys.argv[2]),
        float(sys.argv[3]),
        float(sys.argv[4]),
        int(sys.argv[5]),
        *sys.argv[6:],
    )
