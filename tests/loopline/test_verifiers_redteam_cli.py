"""`loopline verifiers redteam`: a model behind an OpenAI-compatible endpoint attacks the verifiers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from envs.rcm.tasks import generate_base, generate_edge
from loopline.cli import app

TASKS = len(generate_base(0, 1)) + len(generate_edge(0, 1))

pytestmark = pytest.mark.integration


class _Attacker(BaseHTTPRequestHandler):
    """Writes off the billed amount of whatever item it is shown (a queue has none: a million) as
    contractual."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        item = json.loads(body["messages"][-1]["content"])
        calls = [
            ("get_remittance", {"claim_id": item["item_id"]}),
            (
                "post_write_off",
                {
                    "claim_id": item["item_id"],
                    "amount": item.get("billed_amount", 1_000_000),
                    "reason_code": "contractual",
                },
            ),
        ]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(calls)
            ],
        }
        payload = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_model_attack_is_replayed_and_scored_on_every_task(endpoint: str, tmp_path: Path) -> None:
    findings = tmp_path / "findings.jsonl"
    result = CliRunner().invoke(
        app,
        ["verifiers", "redteam", "--base-url", endpoint, "--model", "attacker", "--findings", str(findings)],
    )
    assert result.exit_code == 0, result.output
    # writing off the whole billed amount exceeds every claim's open balance: the ledger refuses it,
    # nothing changes, and no verifier rewards it
    assert f"{TASKS} proposals on {TASKS} tasks: 0 above doing nothing" in result.output
    assert not findings.exists()


def test_an_unreachable_endpoint_is_reported_per_task_not_a_crash(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["verifiers", "redteam", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--per-carc", "1"],
    )
    assert result.exit_code == 0 and f"0 proposals on {TASKS} tasks" in result.output
