"""The official `openai` client streams from `serve-policy`'s app on a real uvicorn server: text and
tool-call deltas join into the same turn the plain completion gives, the usage chunk comes when
asked for, and requests OpenAI's API would refuse are a 400 with the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from adapters.chat import Message
from adapters.serving import serve_in_thread
from engine import EpisodeView, PolicyReply, Usage, parse_arguments, written
from schemas.events import PolicyRef, SamplingParams
from tests.training.serve.keys import KEYS, SERVING
from training.serve.app import create_app

pytestmark = pytest.mark.integration

LONG = json.dumps({"claim_id": "CLM-" + "7" * 150, "note": "a note long enough to need several chunks"})

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"claim_id": {"type": "string"}, "note": {"type": ["string", "null"]}},
                "required": ["claim_id", "note"],
                "additionalProperties": False,
            },
        },
    }
    for name in ("get_claim", "add_note")
]


class _Worker:
    """A model that answers a question with text and anything else with two tool calls."""

    ref = PolicyRef(model="worker", route="scripted")
    sampling = SamplingParams()

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        if "?" in str(messages[-1].get("content")):
            return written("The claim was paid on 3 May.", usage=Usage(11, 7))
        return written(
            "Looking it up.",
            (
                parse_arguments("call-1", "get_claim", LONG),
                parse_arguments("call-2", "add_note", '{"claim_id":"CLM-1","note":null}'),
            ),
            usage=Usage(20, 30),
        )


@pytest.fixture(scope="module")
def client() -> Iterator[openai.OpenAI]:
    app = create_app(lambda _a, _n: _Worker(), "worker", keys=KEYS, adapter_root=Path("."))
    with serve_in_thread(app, name="stream-server") as url:
        yield openai.OpenAI(base_url=f"{url}/v1", api_key=KEYS.serving, max_retries=0)


WORK: list[Any] = [{"role": "system", "content": "be careful"}, {"role": "user", "content": "work CLM-1"}]


def test_streamed_tool_call_deltas_join_into_the_calls_of_the_plain_completion(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="worker", messages=WORK, tools=TOOLS)
    stream = client.chat.completions.create(
        model="worker",
        messages=WORK,
        tools=TOOLS,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text, finish = "", None
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks[:-1]:
        (choice,) = chunk.choices
        text += choice.delta.content or ""
        finish = choice.finish_reason or finish
        for delta in choice.delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
            call["id"] = delta.id or call["id"]
            call["name"] += (delta.function.name or "") if delta.function else ""
            call["arguments"] += (delta.function.arguments or "") if delta.function else ""
    pieces = [d for c in chunks[:-1] for d in c.choices[0].delta.tool_calls or [] if d.index == 0]
    assert len(pieces) > 2, "long arguments come in pieces the client joins"
    message = plain.choices[0].message
    assert text == message.content and finish == plain.choices[0].finish_reason == "tool_calls"
    assert [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())] == [
        (c.id, c.function.name, c.function.arguments)
        for c in message.tool_calls or []
        if c.type == "function"
    ]
    usage = chunks[-1]
    assert usage.choices == [] and usage.usage is not None and usage.usage.total_tokens == 50


def test_the_clients_stream_helper_rebuilds_the_turn(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(model="worker", messages=WORK, tools=TOOLS) as stream:
        for _event in stream:
            pass
        final = stream.get_final_completion()
    (choice,) = final.choices
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Looking it up."
    assert [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []] == [
        ("get_claim", json.loads(LONG)),
        ("add_note", {"claim_id": "CLM-1", "note": None}),
    ]


def test_a_streamed_final_message_ends_with_stop(client: openai.OpenAI) -> None:
    question: list[Any] = [{"role": "user", "content": "when was it paid?"}]
    chunks = list(client.chat.completions.create(model="worker", messages=question, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "The claim was paid on 3 May."
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(not c.choices[0].delta.tool_calls for c in chunks)


def test_the_event_stream_ends_with_done(client: openai.OpenAI) -> None:
    response = httpx.post(
        f"{client.base_url}chat/completions",
        json={"model": "worker", "messages": WORK, "stream": True},
        headers=SERVING,
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.text.split("\n\n") if line]
    assert events[-1] == "data: [DONE]" and all(e.startswith("data: {") for e in events[:-1])


@pytest.mark.parametrize(
    ("messages", "extra", "reason"),
    [
        ([{"role": "wizard", "content": "hi"}], {}, "messages[0].role 'wizard' is not one of"),
        ([{"role": "user", "content": "hi", "mood": "sunny"}], {}, "carries unrecognized keys: mood"),
        ([{"role": "tool", "content": "{}"}], {}, "has no 'tool_call_id'"),
        (
            [{"role": "user", "content": "hi"}],
            {"wizardry": 1},
            "Unrecognized request arguments supplied: wizardry",
        ),
        ([{"role": "user", "content": "hi"}], {"n": 3}, "n must be 1"),
        ([], {}, "messages"),
    ],
)
def test_what_openai_would_refuse_is_a_400_with_the_reason(
    client: openai.OpenAI, messages: list[Any], extra: dict[str, Any], reason: str
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="worker", messages=messages, extra_body=extra)
    assert refused.value.status_code == 400
    assert reason in refused.value.message


def test_a_body_that_is_not_json_is_a_400(client: openai.OpenAI) -> None:
    response = httpx.post(
        f"{client.base_url}chat/completions",
        content=b"{nope",
        headers={"content-type": "application/json", **SERVING},
    )
    assert response.status_code == 400 and response.json()["error"]["type"] == "invalid_request_error"


def test_metrics_count_completions_by_model_and_status(client: openai.OpenAI) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    client.chat.completions.create(model="worker", messages=WORK, tools=TOOLS)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="worker", messages=[{"role": "wizard", "content": "x"}])  # type: ignore[list-item, misc]
    text = httpx.get(f"{client.base_url}".removesuffix("v1/") + "metrics", headers=SERVING).text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert samples[("loopline_policy_completions_total", (("model", "worker"), ("status", "200")))] >= 1
    assert samples[("loopline_policy_completions_total", (("model", "-"), ("status", "400")))] >= 1
    assert samples[("loopline_policy_tokens_total", (("kind", "completion"), ("model", "worker")))] >= 30
    assert samples[("loopline_policy_models_loaded", (("kind", "base"),))] == 1
    assert ("loopline_policy_completion_seconds_count", (("model", "worker"),)) in samples
