"""Canary evidence no caller can steer, on the real broker and stream worker: an agent's gateway
episodes (even under the champion's model name, each with a paid outcome) are recorded as the
`external` arm and never count for the champion; the bridge's own routed episodes count once
each, by the arm the router gave them; and the arm is keyed by the bridge's secret, so the public
hash of the canary id and the item id (printed on `episode.started`) does not predict it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.serving import serve_in_thread
from bridge.runtime.canary import bucket
from bridge.store import SqlEventArchive
from engine import ScriptedPolicy, say
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.kafka.topics import ensure_topics
from loopline.release.observe import observe_episodes, served_episodes
from schemas.events import PolicyRef
from tests.bridge.streams.broker import WorkerProcess, embedded_worker_keys, wait_until
from tests.conftest import StackHandle
from tests.loopline.gated import live_canary
from training.release.manager import ReleaseManager
from training.serve.access import AccessKeys
from training.serve.app import create_app

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

AGENT, INTEGRATION = "dev-agent-token", "dev-integration-token"
KEYS = AccessKeys(serving="e2e-serving-key-0000000", release="e2e-release-key-0000000")
SECRET = "canary-secret-the-bridge-alone-holds"
ROUTED, GATEWAY = 24, 12


def _done() -> ScriptedPolicy:
    """A model that closes every episode at once with a message."""
    return ScriptedPolicy(
        lambda _messages: say("Reviewed; nothing to do."), ref=PolicyRef(model="done", route="scripted")
    )


def _public_bucket(canary_id: str, item_id: str) -> float:
    digest = hashlib.sha256(f"{canary_id}\0{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _item(n: int) -> dict[str, Any]:
    claim = f"CLM-{9000 + n}"
    return {"domain": "rcm", "kind": "denial", "item_id": claim, "payload": {"claim_id": claim},
            "instructions": "Work this denied claim."}  # fmt: skip


def _drive(api: str) -> tuple[dict[str, str], list[str]]:
    """Routed episodes (episode id → item id) and gateway episodes, each with a paid outcome."""
    agent = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {AGENT}"}, timeout=60)
    integration = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {INTEGRATION}"}, timeout=30)
    routed: dict[str, str] = {}
    for n in range(ROUTED):
        run = agent.post("/v1/episodes", json={"work_item": _item(n)})
        assert run.status_code == 200, run.text
        routed[run.json()["episode_id"]] = _item(n)["item_id"]
    gateway = []
    for n in range(GATEWAY):
        opened = agent.post(
            "/v1/gateway/episodes", json={"work_item": _item(100 + n), "model": "loopline-rcm"}
        )
        assert opened.status_code in (200, 201), opened.text
        episode_id = opened.json()["episode_id"]
        closed = agent.post(f"/v1/gateway/episodes/{episode_id}/close", json={"status": "completed"})
        assert closed.status_code == 200, closed.text
        gateway.append(episode_id)
    for episode_id, item_id in [*routed.items(), *((g, "CLM-gw") for g in gateway)]:
        outcome = {"episode_id": episode_id, "kind": "paid", "item_id": item_id,
                   "observed_at": "2026-02-01T00:00:00Z"}  # fmt: skip
        assert integration.post("/v1/outcomes", json=outcome).status_code == 202
    return routed, gateway


def test_gateway_episodes_never_count_for_the_champion_and_the_bucket_needs_the_secret(
    stack: StackHandle, unique_topic: str, tmp_path: Path
) -> None:
    topic, dlq = f"{unique_topic}.events.v1", f"{unique_topic}.dlq.v1"
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq], partitions=2)
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    keys = embedded_worker_keys(tmp_path)
    release_url, state = f"sqlite:///{tmp_path / 'release.db'}", tmp_path / "state"
    store, registered = live_canary(state, release_url, "cycle-1")

    policy = create_app(lambda _a, _n: _done(), "loopline-rcm", keys=KEYS, adapter_root=state / "adapters",
                        registered=registered)  # fmt: skip
    worker = WorkerProcess(
        stack.bootstrap_servers, db_url, topic, dlq, tmp_path / "worker.log", group=unique_topic
    )
    try:
        with serve_in_thread(policy, name="policy") as policy_url:
            load = {"lora_name": "rcm-cycle-1", "lora_path": "cycle-1"}
            headers = {"Authorization": f"Bearer {KEYS.release}"}
            assert (
                httpx.post(f"{policy_url}/v1/load_lora_adapter", json=load, headers=headers).status_code
                == 200
            )
            settings = BridgeSettings(
                state_dir=tmp_path / "bridge", db_url=db_url, events_topic=topic, kafka=stack.kafka,
                environment="dev", event_keys_file=keys, policy="openai", policy_base_url=f"{policy_url}/v1",
                policy_api_key=KEYS.serving, release_db_url=release_url, canary_secret=SECRET,  # type: ignore[arg-type]
            )  # fmt: skip
            bridge = build_bridge(settings)
            try:
                with serve_in_thread(bridge.app(), name="bridge-api") as api:
                    routed, gateway = _drive(api)
                    assert bridge.capture.relay is not None and bridge.capture.relay.flush(60)
                    archive = SqlEventArchive(db_url)
                    rows = sum(len(bridge.capture.outbox.events(e)) for e in [*routed, *gateway])
                    wait_until(lambda: archive.count(source=settings.source) >= rows, "the archive", worker)
            finally:
                bridge.close()
    finally:
        worker.stop()

    episodes = served_episodes(archive.iter_streams())
    assert {episodes[g].route for g in gateway} == {"external"}
    assert {episodes[g].adapter_id for g in gateway} == {None}  # the champion's adapter, had it been routed
    manager = ReleaseManager(store)
    report = observe_episodes(manager, episodes.values(), domain="rcm")
    assert (report.counted, report.not_counted, report.waiting) == (ROUTED, GATEWAY, 0)
    canary, champion = store.observations("cycle-1")
    assert len(canary) + len(champion) == ROUTED
    again = observe_episodes(manager, episodes.values(), domain="rcm")
    assert again.counted == 0 and store.observations("cycle-1") == (canary, champion)  # each episode once

    arms = {e: episodes[e].route for e in routed}
    assert arms == {
        e: "canary" if bucket(SECRET.encode(), "cycle-1", i) < 0.5 else "champion" for e, i in routed.items()
    }
    assert 0 < len(canary) < ROUTED
    public = {e: "canary" if _public_bucket("cycle-1", i) < 0.5 else "champion" for e, i in routed.items()}
    assert public != arms  # a submitter reading the canary id off `episode.started` cannot choose its arm
