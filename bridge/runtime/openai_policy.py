"""`OpenAIChatPolicy`: the policy client for any OpenAI-compatible chat-completions server with tools.

Production serves vLLM with LoRA adapters (the adapter is chosen by the `model` name); the embedded
stack serves Loopline's own small server. Both speak the same wire format, so one client serves.
The client is synchronous on purpose: the Toolbox is synchronous and the HTTP API runs episodes in
a worker thread pool, where a blocking client is the simple, correct choice.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Literal

import httpx

from bridge.runtime.openai_wire import error_message, parse_completion, request_body
from bridge.runtime.retry import RetryPolicy, parse_retry_after
from engine import EpisodeView, Message, PolicyError, PolicyReply
from schemas.events import PolicyRef, SamplingParams

Route = Literal["champion", "canary", "scripted", "human", "external"]


class OpenAIChatPolicy:
    """A served model behind `POST {base_url}/chat/completions`, with retries.

    Retries 408/429/5xx and transport errors (timeouts included) with exponential backoff and
    jitter, waits what a `Retry-After` header asks, and raises `PolicyError` when it gives up.
    One instance may be shared by worker threads: httpx's connection pool is thread-safe.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        adapter_id: str | None = None,
        route: Route = "champion",
        sampling: SamplingParams | None = None,
        timeout: httpx.Timeout | float = 60.0,
        retry: RetryPolicy | None = None,
        tool_choice: str | None = "auto",
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self._model = model
        self._ref = PolicyRef(model=model, adapter_id=adapter_id, route=route)
        self._sampling = sampling or SamplingParams()
        self._retry = retry or RetryPolicy()
        self._tool_choice = tool_choice
        self._extra = dict(extra_body or {})
        self._sleep = sleep
        self._rng = rng or random.Random()

    @property
    def ref(self) -> PolicyRef:
        return self._ref

    @property
    def sampling(self) -> SamplingParams:
        return self._sampling

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        view: EpisodeView | None = None,
    ) -> PolicyReply:
        """One chat completion; retries what is worth retrying, else raises `PolicyError`. A model
        reads the conversation alone, so `view` is unused."""
        body = request_body(
            self._model, messages, tools, self._sampling, tool_choice=self._tool_choice, extra=self._extra
        )
        start = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            outcome, wait = self._attempt(body, attempt)
            if isinstance(outcome, PolicyReply):
                latency_ms = (time.perf_counter() - start) * 1000
                return replace(outcome, latency_ms=latency_ms, attempts=attempt)
            if wait is None or attempt >= self._retry.max_attempts:
                raise outcome
            self._sleep(wait)

    def _attempt(self, body: dict[str, Any], attempt: int) -> tuple[PolicyReply | PolicyError, float | None]:
        """One request: the reply, or the error plus how long to wait before retrying (None: don't)."""
        try:
            response = self._http.post("/chat/completions", json=body)
        except httpx.TimeoutException as exc:
            return PolicyError("timeout", _describe(exc), attempts=attempt), self._backoff(attempt)
        except httpx.TransportError as exc:
            return PolicyError("transport", _describe(exc), attempts=attempt), self._backoff(attempt)
        if response.is_success:
            try:
                payload = response.json()
            except ValueError:  # JSONDecodeError, or bytes that are not text
                # A 200 that is not JSON comes from something in between (a proxy page); the
                # request never reached a model in a usable way, and retrying rarely fixes it.
                text = response.text[:300]
                return PolicyError("protocol", f"response is not JSON: {text}", attempts=attempt), None
            return parse_completion(payload, latency_ms=0.0, attempts=attempt), None
        return self._http_error(response, attempt)

    def _http_error(self, response: httpx.Response, attempt: int) -> tuple[PolicyError, float | None]:
        try:
            detail = error_message(response.json(), response.text)
        except ValueError:  # JSONDecodeError, or bytes that are not text
            detail = response.text[:300]
        status = response.status_code
        error = PolicyError("http", detail or response.reason_phrase, status_code=status, attempts=attempt)
        if not self._retry.retries_status(status):
            return error, None
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is None:
            return error, self._backoff(attempt)
        if retry_after > self._retry.max_retry_after_s:
            limit = self._retry.max_retry_after_s
            message = (
                f"{detail} (server asked to retry after {retry_after:g} s, more than the {limit:g} s limit)"
            )
            return PolicyError("http", message, status_code=status, attempts=attempt), None
        return error, retry_after

    def _backoff(self, attempt: int) -> float:
        return self._retry.backoff(attempt, self._rng)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIChatPolicy:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _describe(exc: httpx.HTTPError) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
