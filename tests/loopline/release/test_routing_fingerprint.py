"""The bridge routes to a release's adapter only when the policy server serves the files the
release store registered: a server answering the canary's name with other weights gets none of
its traffic, and the champion's share stays where it was."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from adapters.serving import serve_in_thread
from engine import ScriptedPolicy, say
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.cli import app
from loopline.kafka.settings import KafkaSettings
from loopline.release.routing import ReleaseRouter, served_fingerprints
from loopline.streams.event_keys import ensure_keys, role_file
from schemas.events import PolicyRef
from tests.loopline.gated import gated_adapter, safetensors_bytes
from training.release.store import SqlReleaseStore
from training.serve.access import AccessKeys
from training.serve.app import create_app
from training.serve.pool import FingerprintLookup, adapter_fingerprint

pytestmark = pytest.mark.integration

KEYS = AccessKeys(serving="bridge-serving-key-0000", release="bridge-release-key-0000")
ITEMS = [f"claim-{n}" for n in range(200)]


def _quiet() -> ScriptedPolicy:
    return ScriptedPolicy(
        lambda _messages: say("nothing to do"), ref=PolicyRef(model="quiet", route="scripted")
    )


@contextmanager
def _policy_server(root: Path, registered: FingerprintLookup | None) -> Iterator[str]:
    server = create_app(
        lambda _a, _n: _quiet(), "loopline-rcm", keys=KEYS, adapter_root=root, registered=registered
    )
    with serve_in_thread(server, name="policy") as url:
        yield url


def _adapters(state: Path, db_url: str, *args: str) -> None:
    result = CliRunner().invoke(app, ["adapters", *args, "--state", str(state), "--db-url", db_url])
    assert result.exit_code == 0, result.output


def _routes(tmp_path: Path, url: str, db_url: str) -> dict[str, int]:
    ensure_keys(tmp_path / "keys")
    settings = BridgeSettings(
        event_keys_file=role_file("bridge", tmp_path / "keys"),
        state_dir=tmp_path / "bridge", db_url=f"sqlite:///{tmp_path / 'archive.db'}", relay_process=False,
        kafka=KafkaSettings(bootstrap_servers="127.0.0.1:1"), drafts_dir=tmp_path / "drafts",
        policy="openai", policy_base_url=f"{url}/v1", policy_api_key=KEYS.serving,  # type: ignore[arg-type]
        release_db_url=db_url, release_check_s=0.01,
    )  # fmt: skip
    bridge = build_bridge(settings)
    try:
        router = bridge.services.runner.router
        assert isinstance(router, ReleaseRouter)
        router.refresh(force=True)
        counts: dict[str, int] = {}
        for item in ITEMS:
            ref = router.pick(item).ref
            counts[ref.model] = counts.get(ref.model, 0) + 1
        return counts
    finally:
        bridge.close()


def _load(url: str, name: str, path: Path) -> httpx.Response:
    body = {"lora_name": name, "lora_path": str(path)}
    return httpx.post(
        f"{url}/v1/load_lora_adapter", json=body, headers={"Authorization": f"Bearer {KEYS.release}"}
    )


def test_the_bridge_refuses_to_route_to_a_name_served_with_other_weights(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'release.db'}"
    state = tmp_path / "state"
    gated_adapter(state, "cycle-1", db_url=db_url)
    _adapters(state, db_url, "register", "cycle-1", "--served-name", "rcm-cycle-1")
    _adapters(state, db_url, "canary", "cycle-1", "--share", "0.5")
    store = SqlReleaseStore(db_url)

    def registered(name: str) -> str | None:
        record = store.by_served_name(name)
        return record.fingerprint if record else None

    with _policy_server(state / "adapters", registered) as url:
        assert _load(url, "rcm-cycle-1", state / "adapters" / "cycle-1").status_code == 200
        honest = _routes(tmp_path / "honest", url, db_url)
    assert 60 < honest["rcm-cycle-1"] < 140 and honest["loopline-rcm"] == len(ITEMS) - honest["rcm-cycle-1"]

    # a server with no release store to ask (or one tampered with) answers the name with other files
    other = state / "adapters" / "other"
    other.mkdir()
    (other / "adapter_config.json").write_text('{"r": 4}')
    (other / "adapter_model.safetensors").write_bytes(safetensors_bytes("other weights"))
    with _policy_server(state / "adapters", None) as url:
        assert _load(url, "rcm-cycle-1", other).status_code == 200
        impostor = _routes(tmp_path / "impostor", url, db_url)
        unloaded = httpx.post(
            f"{url}/v1/unload_lora_adapter",
            json={"lora_name": "rcm-cycle-1"},
            headers={"Authorization": f"Bearer {KEYS.release}"},
        )
        assert unloaded.status_code == 200
        absent = _routes(tmp_path / "absent", url, db_url)
    assert impostor == {"loopline-rcm": len(ITEMS)}
    assert absent == {"loopline-rcm": len(ITEMS)}


def test_a_server_that_reports_no_fingerprint_is_checked_by_the_folder_it_names(tmp_path: Path) -> None:
    # vLLM's model list names each adapter's folder (`root`) and no fingerprint
    registered = gated_adapter(tmp_path / "state", "cycle-1")
    other = gated_adapter(tmp_path / "state", "cycle-2")
    fingerprint = adapter_fingerprint(registered)

    def models(roots: dict[str, str | None]) -> httpx.MockTransport:
        data = [{"id": name, **({"root": root} if root else {})} for name, root in roots.items()]
        return httpx.MockTransport(
            lambda _request: httpx.Response(200, json={"object": "list", "data": data})
        )

    def check(roots: dict[str, str | None]) -> str | None:
        return served_fingerprints("http://vllm/v1", "key", transport=models(roots))(
            "rcm-cycle-1", fingerprint
        )

    assert check({"rcm-cycle-1": str(registered)}) is None
    assert "holds other files" in str(check({"rcm-cycle-1": str(other)}))
    assert "neither a fingerprint nor a folder" in str(check({"rcm-cycle-1": None}))
    assert "unreadable here" in str(check({"rcm-cycle-1": str(tmp_path / "gone")}))
    assert "does not serve" in str(check({"rcm-cycle-2": str(other)}))


def test_a_champion_that_fails_the_check_leaves_the_previous_champion_serving(tmp_path: Path) -> None:
    from engine import ScriptedPolicy, say
    from schemas.events import PolicyRef
    from training.release.manager import ReleaseManager

    db_url = f"sqlite:///{tmp_path / 'release.db'}"
    state = tmp_path / "state"
    gated_adapter(state, "cycle-1", db_url=db_url)
    _adapters(state, db_url, "register", "cycle-1", "--served-name", "rcm-cycle-1")
    tampered = {"rcm-cycle-1"}

    def client_for(name: str, adapter_id: str | None, route: str) -> ScriptedPolicy:
        return ScriptedPolicy([say("done")], ref=PolicyRef(model=name, adapter_id=adapter_id, route=route))  # type: ignore[arg-type]

    router = ReleaseRouter(
        ReleaseManager(SqlReleaseStore(db_url)), client_for, base_name="loopline-rcm", check_s=0.0,  # type: ignore[arg-type]
        verify=lambda name, _fp: "served with other files" if name in tampered else None, secret=b"s" * 32,
    )  # fmt: skip
    _adapters(state, db_url, "canary", "cycle-1", "--share", "0.5")
    _adapters(state, db_url, "promote", "cycle-1", "--reason", "operator")
    router.refresh(force=True)
    assert {router.pick(item).ref.model for item in ITEMS} == {"loopline-rcm"}
    assert router.key is None  # looked at again at the next check
    tampered.clear()
    router.refresh(force=True)
    assert {router.pick(item).ref.model for item in ITEMS} == {"rcm-cycle-1"}
