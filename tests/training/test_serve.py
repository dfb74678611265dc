"""The bridge's own OpenAI client runs an episode against the policy server: it cannot tell the
embedded policy from vLLM."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from adapters.serving import serve_in_thread
from bridge.runtime import OpenAIChatPolicy
from tests.training.serve.keys import KEYS, RELEASE, SERVING
from training.data import ChatRow
from training.data.sources import LoadedTaskSet
from training.policies import load_policy
from training.serve.app import create_app

pytestmark = pytest.mark.integration


def test_the_bridge_client_gets_the_policys_tool_call_over_http(
    tiny_structured: Path, tiny_rows: list[ChatRow]
) -> None:
    app = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "rcm-structured",
        keys=KEYS,
        adapter_root=tiny_structured.parent,
    )
    row = tiny_rows[0]
    with serve_in_thread(app) as url:
        client = OpenAIChatPolicy(f"{url}/v1", model="rcm-structured", api_key=KEYS.serving)
        reply = client.complete(row.messages[:2], row.tools)
        (call,) = reply.tool_calls
        want = row.messages[2]["tool_calls"][0]["function"]
        assert (call.name, call.arguments) == (want["name"], json.loads(want["arguments"]))
        models = httpx.get(f"{url}/v1/models", headers=SERVING).json()["data"]
        assert [m["id"] for m in models] == ["rcm-structured"]
        missing = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "nope", "messages": row.messages[:2]},
            headers=SERVING,
        )
        assert missing.status_code == 404 and "not loaded" in missing.text
        refused = httpx.post(
            f"{url}/v1/load_lora_adapter",
            json={"lora_name": "x", "lora_path": str(tiny_structured)},
            headers=RELEASE,
        )
        assert refused.status_code == 400


def test_an_adapter_loaded_at_run_time_answers_under_its_name(
    tiny_structured: Path, tiny_rows: list[ChatRow], tmp_path: Path
) -> None:
    from training.lora import LoraSettings, attach
    from training.structured.store import load_model

    attach(load_model(tiny_structured).model, LoraSettings(r=2, alpha=4)).save_pretrained(str(tmp_path / "a"))
    app = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "base",
        keys=KEYS,
        adapter_root=tmp_path,
    )
    row = tiny_rows[0]
    with serve_in_thread(app) as url:
        loaded = httpx.post(
            f"{url}/v1/load_lora_adapter", json={"lora_name": "a", "lora_path": "a"}, headers=RELEASE
        )
        assert loaded.status_code == 200
        body = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "a", "messages": row.messages[:2], "tools": row.tools},
            headers=SERVING,
        )
        assert body.json()["model"] == "a" and body.json()["choices"][0]["finish_reason"] == "tool_calls"
        unloaded = httpx.post(f"{url}/v1/unload_lora_adapter", json={"lora_name": "a"}, headers=RELEASE)
        assert unloaded.status_code == 200
        assert [m["id"] for m in httpx.get(f"{url}/v1/models", headers=SERVING).json()["data"]] == ["base"]


def test_a_served_model_scores_as_the_same_model_in_process(
    tiny_structured: Path, small_base: LoadedTaskSet, tiny_families: tuple[str, ...]
) -> None:
    from loopline.demo.served import ServedPolicy
    from training.data.sources import task_family
    from training.evaluate import run_suite

    tasks = [t for t in small_base.tasks if task_family(t) in tiny_families][:4]
    app = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "rcm-structured",
        keys=KEYS,
        adapter_root=tiny_structured.parent,
    )
    with serve_in_thread(app) as url:
        served = run_suite(ServedPolicy(f"{url}/v1", "rcm-structured", KEYS.serving), "s", tasks, [0])
    alone = run_suite(load_policy(tiny_structured, name="rcm-structured"), "s", tasks, [0])
    assert served.policy == alone.policy == "rcm-structured"
    assert [(t.task_id, t.passed, t.score) for t in served.trials] == [
        (t.task_id, t.passed, t.score) for t in alone.trials
    ]
    assert any(t.passed for t in alone.trials)
