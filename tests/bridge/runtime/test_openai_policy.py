"""`OpenAIChatPolicy` against a real OpenAI-compatible HTTP server: wire format, retries, typed give-up."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from bridge.runtime import OpenAIChatPolicy, RetryPolicy
from engine import PolicyError
from schemas.events import PolicyRef, SamplingParams
from tests.bridge.runtime.fake_openai_server import (
    FakeOpenAIServer,
    Scripted,
    rate_limited,
    server_error,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)

pytestmark = pytest.mark.integration

TOOLS = [{"type": "function", "function": {"name": "lookup_claim", "parameters": {"type": "object"}}}]
MESSAGES = [{"role": "system", "content": "be careful"}, {"role": "user", "content": "work claim C-1"}]
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.04)


def make_policy(url: str, sleeps: list[float], **overrides: object) -> OpenAIChatPolicy:
    options: dict[str, object] = {
        "model": "rcm-lora-7",
        "api_key": "sk-test",
        "retry": FAST_RETRY,
        "sleep": sleeps.append,
        "timeout": 5.0,
    }
    options.update(overrides)
    return OpenAIChatPolicy(url, **options)  # type: ignore[arg-type]


def test_policy_sends_model_tools_messages_and_sampling_and_parses_the_tool_call(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(tool_call_reply("lookup_claim", {"claim_id": "C-1"}))
    sampling = SamplingParams(temperature=0.2, top_p=0.9, max_tokens=256, seed=7)
    with make_policy(openai_server.url, [], sampling=sampling, adapter_id="lora-7") as policy:
        reply = policy.complete(MESSAGES, TOOLS)

    sent = openai_server.requests[0]
    assert sent["model"] == "rcm-lora-7"
    assert sent["messages"] == MESSAGES
    assert sent["tools"] == TOOLS
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"], sent["seed"]) == (0.2, 0.9, 256, 7)
    assert openai_server.headers[0]["authorization"] == "Bearer sk-test"
    assert policy.ref == PolicyRef(model="rcm-lora-7", adapter_id="lora-7", route="champion")

    (call,) = reply.tool_calls
    assert (call.call_id, call.name, call.arguments, call.error) == (
        "call_0",
        "lookup_claim",
        {"claim_id": "C-1"},
        None,
    )
    assert reply.finish_reason == "tool_calls"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 7)
    assert reply.latency_ms > 0
    assert reply.attempts == 1
    assert '"lookup_claim"' in reply.raw


def test_policy_keeps_unparseable_arguments_as_data_instead_of_raising(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(
        tool_calls_reply(("lookup_claim", '{"claim_id": "C-1"'), ("lookup_claim", "[1, 2]"))
    )
    with make_policy(openai_server.url, []) as policy:
        reply = policy.complete(MESSAGES, TOOLS)

    broken, not_object = reply.tool_calls
    assert broken.arguments is None and broken.arguments_raw == '{"claim_id": "C-1"'
    assert broken.error is not None and "not valid JSON" in broken.error
    assert not_object.arguments is None
    assert not_object.error is not None and "object" in not_object.error


def test_policy_reads_a_text_only_reply(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(text_reply("All done."))
    with make_policy(openai_server.url, []) as policy:
        reply = policy.complete(MESSAGES, TOOLS)
    assert (reply.content, reply.tool_calls, reply.finish_reason) == ("All done.", (), "stop")


def test_policy_honours_retry_after_on_429(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(rate_limited("2"), tool_call_reply("lookup_claim", {"claim_id": "C-1"}))
    sleeps: list[float] = []
    with make_policy(openai_server.url, sleeps) as policy:
        reply = policy.complete(MESSAGES, TOOLS)
    assert sleeps == [2.0]
    assert reply.attempts == 2
    assert len(openai_server.requests) == 2


def test_policy_really_waits_the_retry_after_it_was_given(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(rate_limited("1"), text_reply("ok"))
    with OpenAIChatPolicy(openai_server.url, model="m", retry=FAST_RETRY) as policy:
        began = time.monotonic()
        policy.complete(MESSAGES, TOOLS)
        assert time.monotonic() - began >= 1.0


def test_policy_gives_up_at_once_when_retry_after_exceeds_its_limit(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(rate_limited("3600"))
    sleeps: list[float] = []
    with make_policy(openai_server.url, sleeps) as policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert sleeps == []
    assert (caught.value.kind, caught.value.status_code, caught.value.attempts) == ("http", 429, 1)
    assert "3600" in str(caught.value)


def test_policy_retries_5xx_with_exponential_backoff_and_jitter(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(server_error(500), server_error(502), server_error(503), text_reply("ok"))
    sleeps: list[float] = []
    retry = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.03)
    with make_policy(openai_server.url, sleeps, retry=retry) as policy:
        reply = policy.complete(MESSAGES, TOOLS)
    assert reply.attempts == 4
    # Equal jitter: attempt n waits in [cap/2, cap], cap = min(max, base * 2**(n-1)).
    for delay, cap in zip(sleeps, (0.01, 0.02, 0.03), strict=True):
        assert cap / 2 <= delay <= cap


def test_policy_raises_a_typed_error_when_it_gives_up(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(server_error(503), server_error(503), server_error(503))
    sleeps: list[float] = []
    with make_policy(openai_server.url, sleeps) as policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert (caught.value.kind, caught.value.status_code, caught.value.attempts) == ("http", 503, 3)
    assert "upstream exploded" in str(caught.value)
    assert len(sleeps) == 2


def test_policy_does_not_retry_a_client_error(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(Scripted(status=400, body={"error": {"message": "context length exceeded"}}))
    with make_policy(openai_server.url, []) as policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert (caught.value.kind, caught.value.status_code, caught.value.attempts) == ("http", 400, 1)
    assert "context length exceeded" in str(caught.value)


def test_policy_rejects_a_malformed_body_as_a_protocol_error(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(Scripted(status=200, body="<html>proxy error</html>"))
    with make_policy(openai_server.url, []) as policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert caught.value.kind == "protocol"


def test_policy_retries_a_read_timeout_then_gives_up(openai_server: FakeOpenAIServer) -> None:
    slow = text_reply("too late")
    openai_server.enqueue(*[Scripted(status=200, body=slow.body, delay_s=0.5)] * 2)
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.01)
    timeout = httpx.Timeout(2.0, read=0.1)
    policy = make_policy(openai_server.url, [], retry=retry, timeout=timeout)
    with policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert (caught.value.kind, caught.value.attempts) == ("timeout", 2)
    time.sleep(0.5)  # let the server finish the slow answers before the next test resets it


def test_policy_retries_connection_errors_then_gives_up() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    with make_policy(f"http://127.0.0.1:{port}/v1", sleeps) as policy, pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, TOOLS)
    assert (caught.value.kind, caught.value.attempts, caught.value.status_code) == ("transport", 3, None)
    assert len(sleeps) == 2
