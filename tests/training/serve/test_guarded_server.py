"""`serve-policy`'s app on a real uvicorn socket, tried as an attacker inside the system would: every
route needs its key, adapters load only from the root, only with the fingerprint the release store
registered and from a private copy of the files that were checked, a used name never takes other
weights, and broken weights are a 400."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.routing import APIRoute

from adapters.serving import serve_in_thread
from engine import Policy
from tests.training.serve.folders import registered_adapters, tiny_adapter
from tests.training.serve.keys import KEYS, RELEASE, SERVING
from training.policies import load_policy
from training.release.manager import ReleaseManager
from training.serve.app import create_app
from training.serve.pool import ADAPTER_FILES, AdapterError, PolicyPool, adapter_fingerprint
from training.serve.snapshot import SnapshotError, private_copy

pytestmark = pytest.mark.integration


@dataclass
class Server:
    url: str
    root: Path
    manager: ReleaseManager
    one: Path
    two: Path

    def load(self, name: str, path: str | Path, headers: dict[str, str] = RELEASE) -> httpx.Response:
        body = {"lora_name": name, "lora_path": str(path)}
        return httpx.post(f"{self.url}/v1/load_lora_adapter", json=body, headers=headers, timeout=60)

    def unload(self, name: str) -> httpx.Response:
        return httpx.post(f"{self.url}/v1/unload_lora_adapter", json={"lora_name": name}, headers=RELEASE)


@pytest.fixture(scope="module")
def server(tiny_structured: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("adapter-root")
    one = tiny_adapter(tiny_structured, root / "one", seed=1)
    two = tiny_adapter(tiny_structured, root / "two", seed=2)
    manager, registered = registered_adapters(
        tmp_path_factory.mktemp("release") / "release.db", {"cycle-1": one, "cycle-2": two, "cycle-9": one}
    )

    app = create_app(
        lambda adapter, name: load_policy(tiny_structured, adapter, name=name),
        "rcm-structured",
        keys=KEYS,
        adapter_root=root,
        registered=registered,
    )
    with serve_in_thread(app, name="guarded-policy") as url:
        yield Server(url, root, manager, one, two)


def test_every_route_refuses_a_missing_or_wrong_token(server: Server, tiny_structured: Path) -> None:
    app = create_app(lambda _a, _n: load_policy(tiny_structured), "x", keys=KEYS, adapter_root=server.root)
    routes = [(m, r.path) for r in app.routes if isinstance(r, APIRoute) for m in r.methods]
    assert len(routes) >= 6
    for method, path in [*routes, ("GET", "/docs"), ("GET", "/openapi.json")]:
        for headers in (
            {},
            {"Authorization": "Bearer wrong-key-of-no-one-000"},
            {"Authorization": KEYS.serving},
        ):
            answer = httpx.request(method, f"{server.url}{path}", headers=headers, json={})
            assert answer.status_code == 401, (method, path, headers)
            assert answer.headers["www-authenticate"] == "Bearer"
    for path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
        answer = httpx.post(f"{server.url}{path}", headers=SERVING, json={"lora_name": "cycle-1"})
        assert answer.status_code == 403 and "release key" in answer.json()["error"]["message"]
    assert httpx.get(f"{server.url}/health", headers=SERVING).json() == {"status": "ok"}


def test_paths_outside_the_adapter_root_are_refused(server: Server, tmp_path: Path) -> None:
    outside = shutil.copytree(server.one, tmp_path / "outside")
    (server.root / "escape").symlink_to(outside, target_is_directory=True)
    for path in (str(outside), "../outside", f"{server.root}/../{outside.name}", "escape"):
        answer = server.load("cycle-1", path)
        assert answer.status_code == 403, path
        assert (
            "adapter root" in answer.json()["error"]["message"] or "`..`" in answer.json()["error"]["message"]
        )


def test_files_that_differ_from_the_registered_fingerprint_are_refused(server: Server) -> None:
    mismatch = server.load("cycle-1", server.two)
    assert mismatch.status_code == 409
    assert "not what the release store registered" in mismatch.json()["error"]["message"]
    unregistered = server.load("cycle-77", server.one)
    assert unregistered.status_code == 403 and "no adapter is registered" in unregistered.text
    assert server.load("cycle-1", "one").json()["status"] == "loaded"
    assert server.load("cycle-1", server.one).json()["status"] == "already loaded"
    models = httpx.get(f"{server.url}/v1/models", headers=SERVING).json()["data"]
    record = server.manager.store.by_served_name("cycle-1")
    assert record is not None
    assert {m["id"]: m["fingerprint"] for m in models}["cycle-1"] == record.fingerprint
    assert server.unload("cycle-1").status_code == 200


def test_a_name_once_used_never_serves_other_weights_even_after_an_unload(
    server: Server, tiny_structured: Path
) -> None:
    # without a release store to ask, the pool's own memory of each name holds
    pool = PolicyPool(lambda a, n: load_policy(tiny_structured, a, name=n), "base", root=server.root)
    assert pool.load("v1", "one")[1]
    pool.unload("v1")
    with pytest.raises(AdapterError, match="even after an unload") as refused:
        pool.load("v1", "two")
    assert refused.value.status == 409
    assert pool.load("v1", "one")[1]
    # with one, the registry refuses the swap before the pool is asked
    assert server.load("cycle-9", server.one).status_code == 200
    assert server.unload("cycle-9").status_code == 200
    assert server.load("cycle-9", server.two).status_code == 409


def test_broken_weights_are_a_400_with_the_reason(server: Server) -> None:
    cases = {
        "truncated": lambda f: f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2]),
        "garbage": lambda f: f.write_bytes(b"\x80\x04\x95 not safetensors at all"),
        "empty": lambda f: f.write_bytes(b""),
    }
    for label, spoil in cases.items():
        folder = shutil.copytree(server.one, server.root / f"broken-{label}")
        spoil(folder / "adapter_model.safetensors")
        answer = server.load("cycle-2", folder)
        assert answer.status_code == 400, label
        assert "safetensors" in answer.json()["error"]["message"], label
    pickled = shutil.copytree(server.one, server.root / "pickled")
    (pickled / "adapter_model.bin").write_bytes(b"\x80\x04cos\nsystem\n.")
    answer = server.load("cycle-2", pickled)
    assert answer.status_code == 400 and "pickled weights" in answer.json()["error"]["message"]
    assert httpx.get(f"{server.url}/health", headers=SERVING).status_code == 200


def test_files_swapped_after_the_check_are_never_what_loads(server: Server, tiny_structured: Path) -> None:
    victim = shutil.copytree(server.one, server.root / "victim")
    registered = {"cycle-1": adapter_fingerprint(server.one)}
    handed: list[Path] = []

    def load(adapter: Path | None, name: str) -> Policy:
        if adapter is not None:  # the swap, between the fingerprint check and the model's read
            for file in ("adapter_config.json", "adapter_model.safetensors"):
                shutil.copyfile(server.two / file, victim / file)
            handed.append(adapter)
        return load_policy(tiny_structured, adapter, name=name)

    private = server.root.parent / "private"
    private.mkdir()
    pool = PolicyPool(load, "base", root=server.root, registered=registered.get, private=private)
    served, fresh = pool.load("cycle-1", "victim")
    assert fresh and served.fingerprint == registered["cycle-1"]
    [folder] = handed
    assert not folder.is_relative_to(server.root) and folder.is_relative_to(private)
    assert adapter_fingerprint(folder) == registered["cycle-1"] != adapter_fingerprint(victim)
    assert folder.stat().st_mode & 0o077 == 0  # no other user can open the copy
    assert pool.load("cycle-1", server.one)[1] is False and list(private.iterdir()) == [folder]
    pool.unload("cycle-1")
    assert list(private.iterdir()) == []


def test_a_link_swapped_in_after_the_path_check_is_never_followed(server: Server, tmp_path: Path) -> None:
    folder = shutil.copytree(server.one, server.root / "linked")
    outside = shutil.copyfile(server.two / "adapter_model.safetensors", tmp_path / "weights")
    (folder / "adapter_model.safetensors").unlink()
    (folder / "adapter_model.safetensors").symlink_to(outside)
    with pytest.raises(SnapshotError, match="plain file"):
        private_copy(folder, ADAPTER_FILES, root=server.root, into=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["weights"]  # the half-made copy is gone
