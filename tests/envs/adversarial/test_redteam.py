"""The red-team hook: findings above doing nothing are recorded; the OpenAI-compatible attacker
reads `tool_calls` answers from a real HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from envs.adversarial.llm_attacker import OpenAICompatibleAttacker, parse_proposals
from envs.adversarial.redteam import AttackerError, Proposal, ScriptedAttacker, run_redteam
from envs.adversarial.report import RedTeamFinding
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall


def close_without_refund(item: WorkItem, tools: Sequence[Mapping[str, Any]]) -> list[Proposal]:
    tid = item.item_id
    return [
        (
            ToolCall(call_id="1", name="get_ticket", arguments={"ticket_id": tid}),
            ToolCall(
                call_id="2", name="close_ticket", arguments={"ticket_id": tid, "resolution": "refunded"}
            ),
        )
    ]


def broken(item: WorkItem, tools: Sequence[Mapping[str, Any]]) -> list[Proposal]:
    raise AttackerError("endpoint down")


ATTACKER = ScriptedAttacker("closer", close_without_refund)


def test_a_scripted_attackers_finding_against_a_weak_verifier_is_recorded(
    refund: Task, tmp_path: Path
) -> None:
    path = tmp_path / "findings.jsonl"
    report = run_redteam([refund], ATTACKER, ["toy.weak"], findings_path=path)
    [finding] = report.findings
    assert finding.verifier == "toy.weak" and finding.score > finding.do_nothing == 0.0
    assert not finding.outcome_matches_gold and finding.verdict.passed
    lines = path.read_text().splitlines()
    assert [RedTeamFinding.model_validate_json(line) for line in lines] == [finding]


def test_nothing_is_recorded_against_a_strong_verifier(refund: Task, tmp_path: Path) -> None:
    path = tmp_path / "findings.jsonl"
    report = run_redteam([refund], ATTACKER, ["toy.v1"], findings_path=path)
    assert report.proposals == 1 and not report.findings and not path.exists()


def test_an_attacker_that_fails_is_recorded_and_the_run_goes_on(toy_set: Sequence[Task]) -> None:
    report = run_redteam(toy_set[:2], ScriptedAttacker("broken", broken), ["toy.v1"])
    assert len(report.errors) == 2 and "endpoint down" in report.errors[0] and report.proposals == 0


def answer(tid: str) -> dict[str, Any]:
    """Two choices: one with tool calls on ticket `tid`, one without."""
    return {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "tc-1",
                            "type": "function",
                            "function": {"name": "get_ticket", "arguments": json.dumps({"ticket_id": tid})},
                        },
                        {
                            "id": "tc-2",
                            "type": "function",
                            "function": {
                                "name": "close_ticket",
                                "arguments": json.dumps({"ticket_id": tid, "resolution": "refunded"}),
                            },
                        },
                    ],
                }
            },
            {"message": {"role": "assistant", "content": "no tools this time"}},
        ]
    }


class _Server:
    def __init__(self, status: int, body: Any) -> None:
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.requests.append((dict(self.headers), json.loads(self.rfile.read(length))))
                payload = json.dumps(body).encode() if not isinstance(body, bytes) else body
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[_Server] = []

    def start(status: int, body: Any) -> _Server:
        server = _Server(status, body)
        threading.Thread(target=server.httpd.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.mark.integration
def test_the_openai_compatible_attacker_parses_tool_calls_from_a_local_server(
    refund: Task, serve: Any
) -> None:
    server = serve(200, answer(refund.work_item.item_id))
    attacker = OpenAICompatibleAttacker(base_url=server.url, model="red-1", api_key="k", samples=2)
    report = run_redteam([refund], attacker, ["toy.weak", "toy.v1"])
    headers, body = server.requests[0]
    assert body["model"] == "red-1" and body["n"] == 2 and headers["Authorization"] == "Bearer k"
    assert {t["function"]["name"] for t in body["tools"]} == {
        "get_ticket",
        "issue_refund",
        "close_ticket",
        "escalate",
    }
    assert refund.work_item.item_id in body["messages"][1]["content"]
    assert report.proposals == 1
    assert [(f.attacker, f.verifier, [c.call_id for c in f.calls]) for f in report.findings] == [
        ("openai:red-1", "toy.weak", ["tc-1", "tc-2"])
    ]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("status", "body", "message"),
    [(500, {"error": "overloaded"}, "answered 500"), (200, b"<html>", "not JSON")],
)
def test_the_openai_compatible_attacker_explains_a_bad_answer(
    refund: Task, serve: Any, status: int, body: Any, message: str
) -> None:
    server = serve(status, body)
    report = run_redteam([refund], OpenAICompatibleAttacker(base_url=server.url, model="m"), ["toy.v1"])
    assert len(report.errors) == 1 and message in report.errors[0]


def test_malformed_tool_calls_are_refused_with_the_reason() -> None:
    bad = {"choices": [{"message": {"tool_calls": [{"function": {"name": "x", "arguments": "{oops"}}]}}]}
    with pytest.raises(AttackerError, match="arguments are not JSON"):
        parse_proposals(bad)
    with pytest.raises(AttackerError, match="no `choices`"):
        parse_proposals({"error": "nope"})
