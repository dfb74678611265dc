"""The pluggable rubric judge: off by default, scripted in tests, and any OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from envs.env import replay
from envs.rcm.domain import DOMAIN
from envs.rcm.verifier import rcm_v2_judged
from envs.verifiers.judge import Judgement, OpenAICompatibleJudge, ScriptedJudge
from schemas.tasks import Task


def retarget(task: Task, name: str) -> Task:
    return task.model_copy(update={"verifier": task.verifier.model_copy(update={"verifier": name})})


def mentions_records(rubric: str, text: str, context: Mapping[str, Any]) -> Judgement:
    ok = "records" in text and str(context["claim"]) in text
    return Judgement(passed=ok, reason="argues from the records" if ok else "argues nothing about this claim")


def test_a_scripted_judge_reads_the_appeal_letter_and_gates_the_score(rcm_base: list[Task]) -> None:
    task = retarget(next(t for t in rcm_base if "resolution:appeal" in t.tags), "rcm.v2+judge")
    verifier = rcm_v2_judged(ScriptedJudge(mentions_records))
    verdict = verifier.score(task, replay(DOMAIN, task, task.gold_solution))
    assert verdict.passed and "content.judge.submit_appeal" in {c.name for c in verdict.checks}
    bland = [
        c.model_copy(
            update={
                "arguments": {**c.arguments, "reason": c.arguments["reason"].replace("records", "papers")}
            }
        )
        if c.name == "submit_appeal"
        else c
        for c in task.gold_solution
    ]
    verdict = verifier.score(task, replay(DOMAIN, task, tuple(bland)))
    failed = [c for c in verdict.checks if not c.passed]
    assert verdict.score == 0.0 and [c.name for c in failed] == ["content.judge.submit_appeal"]
    assert "argues nothing" in failed[0].explanation


class _Server(ThreadingHTTPServer):
    answer: Any = None
    seen: list[dict[str, Any]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append(body)
        payload = json.dumps(self.server.answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def chat_server() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _completion(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


@pytest.mark.integration
def test_an_openai_compatible_judge_asks_the_endpoint_and_reads_its_json_verdict(
    chat_server: _Server,
) -> None:
    chat_server.answer = _completion(json.dumps({"passed": False, "reason": "boilerplate"}))
    judge = OpenAICompatibleJudge(f"http://127.0.0.1:{chat_server.server_address[1]}/v1", model="grader")
    verdict = judge.judge("cite the denial", "please pay", {"claim": "CLM-1"})
    assert verdict == Judgement(passed=False, reason="boilerplate")
    [request] = chat_server.seen
    assert request["model"] == "grader" and "cite the denial" in request["messages"][1]["content"]


@pytest.mark.integration
def test_a_judge_that_answers_nonsense_fails_the_writing_with_the_reason(chat_server: _Server) -> None:
    chat_server.answer = _completion("I think it is fine")
    judge = OpenAICompatibleJudge(f"http://127.0.0.1:{chat_server.server_address[1]}/v1", model="grader")
    verdict = judge.judge("cite the denial", "please pay", {})
    assert not verdict.passed and "gave no verdict" in verdict.reason
