"""Bounded resources at the API: bodies bounded while they stream, gateway sessions per caller."""

from __future__ import annotations

import select
import socket
import time
from urllib.parse import urlsplit

import psutil
import pytest

from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}
MB = 1024 * 1024


def _send_chunked(url: str, path: str, total: int, headers: dict[str, str]) -> tuple[bytes, int]:
    """POST `total` bytes as a chunked body over a raw socket, stopping as soon as the server
    answers; the answer's head and how many body bytes were sent before it came."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    head = f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sock.sendall((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
    chunk = b"[" + b"1," * (MB // 2 - 1)
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    sent = 0
    try:
        while sent < total:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            sock.sendall(frame)
            sent += len(chunk)
        answer = b""
        deadline = time.monotonic() + 30
        while b"\r\n\r\n" not in answer and time.monotonic() < deadline:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    except (BrokenPipeError, ConnectionResetError):
        answer = sock.recv(65536)
    finally:
        sock.close()
    return answer, sent


def test_a_100_mb_chunked_body_is_refused_while_it_streams_without_the_process_growing(
    bridge: Bridge,
) -> None:
    process = psutil.Process()
    agent = bridge.client("agent-token")
    assert agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).status_code == 200  # warm up
    before = process.memory_info().rss
    for headers in ({}, {"Authorization": "Bearer agent-token"}):  # no token: refused before auth too
        answer, sent = _send_chunked(bridge.url, "/v1/episodes", 100 * MB, headers)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert sent < 100 * MB  # refused while streaming, not after the whole body arrived
    grown = process.memory_info().rss - before
    assert grown < 20 * MB, f"the process grew by {grown / MB:.1f} MB"
    assert agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).status_code == 200  # still serving


def test_a_declared_body_over_the_limit_is_refused_unread(bridge: Bridge) -> None:
    answer = bridge.client(None).post(
        "/v1/outcomes", content=b"{" + b" " * 1_100_000 + b"}", headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413 and "body over" in answer.json()["detail"]


def test_a_thousand_sessions_from_one_caller_do_not_lock_out_another(bridge: Bridge) -> None:
    greedy, other = bridge.client("agent-token"), bridge.client("other-agent-token")
    answers = [greedy.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}) for _ in range(1000)]
    codes = [a.status_code for a in answers]
    assert codes.count(200) == 100 and codes.count(429) == 900  # the per-caller cap
    assert "this caller" in answers[-1].json()["detail"]
    opened = other.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM})
    assert opened.status_code == 200, opened.text
    first = answers[0].json()["episode_id"]
    assert greedy.post(f"/v1/gateway/episodes/{first}/close", json={}).status_code == 200
    assert greedy.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}).status_code == 200
