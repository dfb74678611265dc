"""A tiny OpenAI-compatible chat-completions server, served for real over HTTP, with scripted replies.

It is a test peer for `bridge.runtime`'s policy client: each POST to `/v1/chat/completions` takes
the next scripted reply (a completion, a 429 with Retry-After, a 5xx, a slow answer, a broken
body) and records the request, so tests can assert both what the client sent and how it coped.
An exhausted script answers 500 with `script exhausted`, so a test that asks more than it
scripted fails loudly instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response


@dataclass(frozen=True)
class Scripted:
    """One scripted HTTP answer."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def completion(
    message: dict[str, Any],
    *,
    finish_reason: str = "stop",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
) -> Scripted:
    """A 200 chat completion carrying `message`."""
    return Scripted(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def tool_calls_reply(*calls: tuple[str, dict[str, Any] | str], content: str | None = None) -> Scripted:
    """An assistant turn that calls tools; a str argument is sent verbatim (e.g. broken JSON)."""
    tool_calls = [
        {
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for index, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    return completion(message, finish_reason="tool_calls")


def tool_call_reply(name: str, arguments: dict[str, Any] | str) -> Scripted:
    """An assistant turn with one tool call."""
    return tool_calls_reply((name, arguments))


def text_reply(text: str, *, finish_reason: str = "stop") -> Scripted:
    """An assistant turn with text only."""
    return completion({"role": "assistant", "content": text}, finish_reason=finish_reason)


def rate_limited(retry_after: str | None = "1") -> Scripted:
    """429 Too Many Requests, with a Retry-After header unless None."""
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    return Scripted(
        status=429, body={"error": {"message": "rate limited", "type": "rate_limit"}}, headers=headers
    )


def server_error(status: int = 500) -> Scripted:
    """A 5xx with an OpenAI-style error body."""
    return Scripted(status=status, body={"error": {"message": "upstream exploded", "type": "server_error"}})


class FakeOpenAIServer:
    """Serves the script on 127.0.0.1 from a uvicorn thread; `url` is the OpenAI `base_url`."""

    def __init__(self) -> None:
        self._script: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        """Every request body received, in order."""
        self.headers: list[dict[str, str]] = []
        """The headers of every request, in order."""
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(self._app(), log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Scripted) -> None:
        with self._lock:
            self._script.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.headers.clear()

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._script)

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        for _ in range(500):
            if self._server.started:
                return self
            threading.Event().wait(0.01)
        raise RuntimeError("fake OpenAI server did not start")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Scripted | None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            return self._script.popleft() if self._script else None

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat_completions(request: Request) -> Response:
            body = json.loads(await request.body())
            scripted = self._next(body, dict(request.headers))
            if scripted is None:
                return JSONResponse({"error": {"message": "script exhausted"}}, status_code=500)
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
            if isinstance(scripted.body, str):
                return PlainTextResponse(scripted.body, status_code=scripted.status, headers=scripted.headers)
            return JSONResponse(scripted.body, status_code=scripted.status, headers=scripted.headers)

        return app
