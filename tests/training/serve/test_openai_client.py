"""The official `openai` client talks to `loopline serve-policy`'s app on a real uvicorn server:
chat completions with tools, the model list, adapters switched by name without a restart."""

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
from engine import EpisodeView, PolicyReply, parse_arguments, written
from schemas.events import PolicyRef, SamplingParams
from tests.training.serve.keys import KEYS, RELEASE
from training.data import ChatRow
from training.policies import load_policy
from training.serve.app import create_app

pytestmark = pytest.mark.integration


def _adapter(base: Path, folder: Path, seed: int) -> Path:
    import torch

    from training.lora import LoraSettings, attach
    from training.structured.store import load_model

    torch.manual_seed(seed)
    attach(load_model(base).model, LoraSettings(r=2, alpha=4)).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def server(tiny_structured: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "rcm-structured",
        keys=KEYS,
        adapter_root=tmp_path_factory.getbasetemp(),
    )
    with serve_in_thread(app, name="policy-server") as url:
        yield url


def test_the_openai_client_gets_the_policys_tool_call(server: str, tiny_rows: list[ChatRow]) -> None:
    client = openai.OpenAI(base_url=f"{server}/v1", api_key=KEYS.serving)
    row = tiny_rows[0]
    completion = client.chat.completions.create(
        model="rcm-structured",
        messages=row.messages[:2],  # type: ignore[arg-type]
        tools=row.tools,  # type: ignore[arg-type]
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls or []
    want = row.messages[2]["tool_calls"][0]["function"]
    assert call.type == "function"
    assert (call.function.name, json.loads(call.function.arguments)) == (
        want["name"],
        json.loads(want["arguments"]),
    )
    assert [m.id for m in client.models.list()] == ["rcm-structured"]


def test_adapters_switch_by_name_without_a_restart(
    server: str, tiny_structured: Path, tiny_rows: list[ChatRow], tmp_path: Path
) -> None:
    client = openai.OpenAI(base_url=f"{server}/v1", api_key=KEYS.serving)
    one = _adapter(tiny_structured, tmp_path / "one", seed=1)
    two = _adapter(tiny_structured, tmp_path / "two", seed=2)
    row = tiny_rows[0]
    for name, folder in (("cycle-1", one), ("cycle-2", two)):
        loaded = httpx.post(
            f"{server}/v1/load_lora_adapter",
            json={"lora_name": name, "lora_path": str(folder)},
            headers=RELEASE,
        )
        assert loaded.status_code == 200 and loaded.json()["status"] == "loaded"
    assert {m.id for m in client.models.list()} == {"rcm-structured", "cycle-1", "cycle-2"}
    for name in ("cycle-1", "cycle-2", "rcm-structured"):
        completion = client.chat.completions.create(
            model=name,
            messages=row.messages[:2],  # type: ignore[arg-type]
            tools=row.tools,  # type: ignore[arg-type]
        )
        assert completion.model == name and completion.choices[0].message.tool_calls
    again = httpx.post(
        f"{server}/v1/load_lora_adapter",
        json={"lora_name": "cycle-1", "lora_path": str(one)},
        headers=RELEASE,
    )
    assert again.json()["status"] == "already loaded"
    assert (
        httpx.post(
            f"{server}/v1/unload_lora_adapter", json={"lora_name": "cycle-1"}, headers=RELEASE
        ).status_code
        == 200
    )
    with pytest.raises(openai.NotFoundError, match="not loaded"):
        client.chat.completions.create(model="cycle-1", messages=row.messages[:2])  # type: ignore[arg-type]
    httpx.post(f"{server}/v1/unload_lora_adapter", json={"lora_name": "cycle-2"}, headers=RELEASE)


def test_a_name_in_use_refuses_a_different_adapter(
    server: str, tiny_structured: Path, tmp_path: Path
) -> None:
    one = _adapter(tiny_structured, tmp_path / "one", seed=3)
    two = _adapter(tiny_structured, tmp_path / "two", seed=4)
    first = httpx.post(
        f"{server}/v1/load_lora_adapter", json={"lora_name": "v7", "lora_path": str(one)}, headers=RELEASE
    )
    assert first.status_code == 200
    clash = httpx.post(
        f"{server}/v1/load_lora_adapter", json={"lora_name": "v7", "lora_path": str(two)}, headers=RELEASE
    )
    assert clash.status_code == 409 and "names are versions" in clash.json()["error"]["message"]
    base = httpx.post(
        f"{server}/v1/load_lora_adapter",
        json={"lora_name": "rcm-structured", "lora_path": str(one)},
        headers=RELEASE,
    )
    assert base.status_code == 400
    nothing = httpx.post(
        f"{server}/v1/load_lora_adapter", json={"lora_name": "x", "lora_path": str(tmp_path)}, headers=RELEASE
    )
    assert nothing.status_code == 400 and "holds no LoRA adapter" in nothing.text
    httpx.post(f"{server}/v1/unload_lora_adapter", json={"lora_name": "v7"}, headers=RELEASE)


class _Confused:
    """A model that writes one call to a tool it was not offered and one good call."""

    ref = PolicyRef(model="confused", route="scripted")
    sampling = SamplingParams()

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        good = tools[0]["function"]["name"]
        return written(
            "working on it",
            (parse_arguments("call-1", "wire_money", "{}"), parse_arguments("call-2", good, "{}")),
        )


def test_invalid_tool_calls_are_reported_never_presented_as_calls() -> None:
    tools = [{"type": "function", "function": {"name": "list_queue", "parameters": {"type": "object"}}}]
    app = create_app(lambda _adapter, _name: _Confused(), "confused", keys=KEYS, adapter_root=Path("."))
    with serve_in_thread(app) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEYS.serving)
        completion = client.chat.completions.create(
            model="confused",
            messages=[{"role": "user", "content": "work the queue"}],
            tools=tools,  # type: ignore[arg-type]
        )
    message = completion.choices[0].message
    assert [c.function.name for c in message.tool_calls or [] if c.type == "function"] == ["list_queue"]
    assert message.content is None
    (reported,) = (message.model_extra or {})["invalid_tool_calls"]
    assert reported["function"]["name"] == "wire_money" and "not one of the offered" in reported["error"]
