"""The policy gate in front of an OpenAI server with vLLM's adapter endpoints and a single key (here
`serve-policy`'s app, which speaks the same API), on real sockets: the gate holds the only key the
server takes, every route through it needs the serving key and loading the release key, adapters
reach the server only as checked private copies, and its model list carries the fingerprints the
bridge routes by."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from adapters.serving import serve_in_thread
from loopline.release.routing import served_fingerprints
from tests.training.serve.folders import registered_adapters, tiny_adapter
from tests.training.serve.keys import KEYS, RELEASE, SERVING
from training.policies import load_policy
from training.serve.access import AccessKeys
from training.serve.app import create_app
from training.serve.gate import create_gate
from training.serve.pool import adapter_fingerprint

pytestmark = pytest.mark.integration

UPSTREAM = AccessKeys(serving="upstream-unused-key-0001", release="upstream-gate-only-key-01")
"""The server behind the gate: one key that does everything (vLLM's `VLLM_API_KEY`), held by the gate."""


@dataclass
class Gate:
    url: str
    upstream: str
    root: Path
    private: Path
    one: Path
    two: Path

    def load(self, name: str, path: str | Path, headers: dict[str, str] = RELEASE) -> httpx.Response:
        body = {"lora_name": name, "lora_path": str(path)}
        return httpx.post(f"{self.url}/v1/load_lora_adapter", json=body, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def gate(tiny_structured: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gate]:
    root = tmp_path_factory.mktemp("adapter-root")
    private = tmp_path_factory.mktemp("private")
    one = tiny_adapter(tiny_structured, root / "one", seed=1)
    two = tiny_adapter(tiny_structured, root / "two", seed=2)
    _, registered = registered_adapters(
        tmp_path_factory.mktemp("release") / "release.db", {"cycle-1": one, "cycle-2": two}
    )

    server = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "rcm-structured",
        keys=UPSTREAM,
        adapter_root=private,
    )
    server.add_api_route("/reset_prefix_cache", lambda: {"reset": True}, methods=["POST"])  # as vLLM has
    with serve_in_thread(server, name="upstream-policy") as upstream:
        app = create_gate(
            upstream,
            UPSTREAM.release,
            "rcm-structured",
            keys=KEYS,
            adapter_root=root,
            private=private,
            registered=registered,
        )
        with serve_in_thread(app, name="policy-gate") as url:
            yield Gate(url, upstream, root, private, one, two)


def test_every_route_through_the_gate_needs_its_key_and_only_the_gate_holds_the_servers(gate: Gate) -> None:
    routes = [
        ("GET", "/health"),
        ("GET", "/metrics"),
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/load_lora_adapter"),
        ("POST", "/v1/unload_lora_adapter"),
        ("GET", "/anything-else"),
    ]
    for method, path in routes:
        for headers in (
            {},
            {"Authorization": "Bearer wrong-key-of-no-one-000"},
            {"Authorization": KEYS.serving},
        ):
            answer = httpx.request(method, f"{gate.url}{path}", headers=headers, json={})
            assert answer.status_code == 401, (method, path, headers)
    for path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
        answer = httpx.post(
            f"{gate.url}{path}", headers=SERVING, json={"lora_name": "cycle-1", "lora_path": "one"}
        )
        assert answer.status_code == 403 and "release key" in answer.json()["error"]["message"]
    assert httpx.get(f"{gate.url}/health", headers=SERVING).json() == {"status": "ok"}
    upstream_key = {"Authorization": f"Bearer {UPSTREAM.release}"}
    assert httpx.post(f"{gate.upstream}/reset_prefix_cache", headers=upstream_key).json() == {"reset": True}
    for method, path in (("POST", "/reset_prefix_cache"), ("POST", "/sleep"), ("GET", "/v1/anything")):
        assert httpx.request(method, f"{gate.url}{path}", headers=RELEASE).status_code == 404, path
    for key in (KEYS.serving, KEYS.release):  # the callers' keys open nothing behind the gate
        assert (
            httpx.get(f"{gate.upstream}/v1/models", headers={"Authorization": f"Bearer {key}"}).status_code
            == 401
        )


def test_the_gate_refuses_escapes_other_files_and_unregistered_names_with_a_4xx(
    gate: Gate, tmp_path: Path
) -> None:
    outside = shutil.copytree(gate.one, tmp_path / "outside")
    for path in (str(outside), "../outside", "one/../../outside"):
        assert gate.load("cycle-1", path).status_code == 403, path
    mismatch = gate.load("cycle-1", gate.two)
    assert mismatch.status_code == 409 and "not what the release store registered" in mismatch.text
    assert gate.load("cycle-77", gate.one).status_code == 403
    broken = shutil.copytree(gate.one, gate.root / "broken")
    (broken / "adapter_model.safetensors").write_bytes(b"not safetensors")
    assert gate.load("cycle-1", broken).status_code == 400
    models = httpx.get(f"{gate.upstream}/v1/models", headers={"Authorization": f"Bearer {UPSTREAM.release}"})
    assert [m["id"] for m in models.json()["data"]] == [
        "rcm-structured"
    ]  # nothing refused reached the server


def test_a_checked_copy_is_what_the_server_loads_and_the_bridge_routes_by_its_fingerprint(gate: Gate) -> None:
    loaded = gate.load("cycle-2", "two")
    assert loaded.status_code == 200 and loaded.json()["status"] == "loaded"
    behind = httpx.get(f"{gate.upstream}/v1/models", headers={"Authorization": f"Bearer {UPSTREAM.release}"})
    [root] = [m["root"] for m in behind.json()["data"] if m["id"] == "cycle-2"]
    assert Path(root).is_relative_to(gate.private) and adapter_fingerprint(Path(root)) == adapter_fingerprint(
        gate.two
    )
    check = served_fingerprints(f"{gate.url}/v1", KEYS.serving)
    assert check("cycle-2", loaded.json()["fingerprint"]) is None
    assert "not the registered" in str(check("cycle-2", "0" * 64))
    messages = [{"role": "user", "content": "Work claim CLM-1."}]
    answer = httpx.post(
        f"{gate.url}/v1/chat/completions",
        headers=SERVING,
        json={"model": "cycle-2", "messages": messages, "stream": True},
        timeout=60,
    )
    assert answer.status_code == 200 and answer.text.rstrip().endswith("data: [DONE]")
    unloaded = httpx.post(
        f"{gate.url}/v1/unload_lora_adapter", headers=RELEASE, json={"lora_name": "cycle-2"}
    )
    assert unloaded.status_code == 200 and not Path(root).exists()
    behind = httpx.get(f"{gate.upstream}/v1/models", headers={"Authorization": f"Bearer {UPSTREAM.release}"})
    assert "cycle-2" not in [m["id"] for m in behind.json()["data"]]
    assert gate.load("cycle-2", gate.one).status_code == 409  # the name never takes other weights
