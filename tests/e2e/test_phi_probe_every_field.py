"""A PHI probe in every string field of every event kind the bridge records, spelling variants
included, through the real broker and stream worker: the escalation queue, the gateway model, call
ids, tool names, argument and payload keys, the outcome kind, item id and reason codes, notes of a
write tool, the instructions (naming the patient) and a note naming another patient of the world.
No raw value, in any spelling, is found in the topics, the archive, the outbox, either process's
log, the read API or the edge cases (`bridge.phi.guard`, docs/capture.md).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.rcm import seed_world
from adapters.rcm.sandbox import SandboxConfig, create_app
from adapters.serving import serve_in_thread
from bridge.store import SqlEventArchive
from bridge.streams.topic_reader import read_topic
from envs.rollout import reference_policy
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.kafka.topics import ensure_topics
from tests.bridge.streams.broker import WorkerProcess, embedded_worker_keys, wait_until
from tests.conftest import StackHandle
from tests.e2e.test_phi_scan_everywhere import process_log

pytestmark = [pytest.mark.e2e, pytest.mark.integration]
__all__ = ["process_log"]

AGENT, INTEGRATION, REVIEWER = "dev-agent-token", "dev-integration-token", "dev-reviewer-token"


def spellings(first: str, last: str, birth: str, member: str) -> dict[str, str]:
    """The probe values: a patient's PHI as people and programs write it."""
    year, month, day = birth.split("-")
    core = "".join(c for c in member if c.isalnum())
    return {
        "name": f"{first} {last}",
        "upper_reversed": f"{last.upper()}, {first.upper()}",
        "initial": f"{first[0]}. {last}",
        "slug": f"{first}_{last}".lower(),
        "dotted": f"{first}.{last}".lower(),
        "birth_slashes": f"{year}/{month}/{day}",
        "birth_us": f"{month}/{day}/{year}",
        "member_dashed": f"{core[:3]}-{core[3:]}",
        "member_lower": core.lower(),
    }


def _drive(api: str, claim: Any, other: Any) -> tuple[list[str], dict[str, str]]:
    agent = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {AGENT}"}, timeout=60)
    integration = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {INTEGRATION}"}, timeout=30)
    episodes: list[str] = []

    def gateway(item: dict[str, Any], model: str = "external") -> str:
        opened = agent.post("/v1/gateway/episodes", json={"work_item": item, "model": model})
        assert opened.status_code in (200, 201), opened.text
        episodes.append(opened.json()["episode_id"])
        return f"/v1/gateway/episodes/{episodes[-1]}"

    # The tenant's world: another episode reads both patients' claims (their PHI joins the directory).
    warm = gateway({"domain": "rcm", "kind": "denial", "item_id": other.claim_id, "instructions": "Work it.",
                    "payload": {"claim_id": other.claim_id}})  # fmt: skip
    for claim_id in (other.claim_id, claim.claim_id):
        read = agent.post(f"{warm}/calls", json={"name": "get_claim", "arguments": {"claim_id": claim_id}})
        assert read.status_code == 200, read.text
    agent.post(f"{warm}/close", json={"status": "completed"})
    probe = spellings(
        claim.patient_first_name, claim.patient_last_name, str(claim.patient_birth_date), claim.member_id
    )
    stranger = f"{other.patient_first_name} {other.patient_last_name}"
    item = {"domain": "rcm", "kind": "denial", "item_id": probe["member_dashed"],
            "instructions": f"{probe['upper_reversed']} (born {probe['birth_slashes']}) called about this claim.",
            "payload": {"claim_id": claim.claim_id, probe["slug"]: probe["initial"]}}  # fmt: skip
    calls = gateway(item, model=f"model-{probe['dotted']}")
    answers = [
        agent.post(f"{calls}/calls", json=body)
        for body in (
            {"name": "get_claim", "arguments": {"claim_id": claim.claim_id}, "call_id": f"call-{probe['slug']}"},
            {"name": f"lookup_{probe['slug']}", "arguments": {"claim_id": claim.claim_id}},
            {"name": "get_claim", "arguments": {"claim_id": claim.claim_id, probe["dotted"]: probe["member_lower"]}},
            {"name": "close_claim", "arguments": {"claim_id": claim.claim_id, "reason": "no_action_needed",
                                                  "note": f"Spoke with {probe['initial']}; not {stranger}. "
                                                          f"DOB {probe['birth_us']}."}},
        )
    ]  # fmt: skip
    assert [a.status_code for a in answers] == [200] * 4, [a.text for a in answers]
    escalated = agent.post(f"{calls}/escalate", json={"reason": f"{probe['name']} disputes", "queue": probe["slug"],
                                                      "recommendation": f"call {probe['upper_reversed']}"})  # fmt: skip
    assert escalated.status_code == 200, escalated.text
    agent.post(
        f"{calls}/close", json={"status": "escalated", "final_message": f"Handed {probe['initial']} over"}
    )
    outcome = {"episode_id": episodes[-1], "kind": f"paid_{probe['slug']}", "item_id": probe["member_lower"],
               "observed_at": "2026-02-01T00:00:00Z", "reason_codes": ["CO-16", probe["member_dashed"]],
               "external_ref": f"ERA for {probe['upper_reversed']}"}  # fmt: skip
    assert integration.post("/v1/outcomes", json=outcome).status_code == 202
    return episodes, probe | {"stranger": stranger, "last": claim.patient_last_name}


def test_a_phi_probe_in_every_string_field_in_every_spelling_is_found_nowhere(
    stack: StackHandle, unique_topic: str, tmp_path: Path, process_log: Path
) -> None:
    topic, dlq = f"{unique_topic}.events.v1", f"{unique_topic}.dlq.v1"
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq], partitions=2)
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    keys = embedded_worker_keys(tmp_path)
    world = seed_world()
    denied = [c for c in world.claims.values() if c.status == "denied"]
    claim = denied[0]
    other = next(c for c in world.claims.values() if c.patient_last_name != claim.patient_last_name)
    sandbox = SandboxConfig(db_url=f"sqlite:///{tmp_path / 'sandbox.db'}", reset=True)
    worker = WorkerProcess(
        stack.bootstrap_servers, db_url, topic, dlq, tmp_path / "worker.log", group=unique_topic,
        args=["--loglevel", "info"],
    )  # fmt: skip
    try:
        with serve_in_thread(create_app(sandbox), name="rcm-sandbox") as live_url:
            settings = BridgeSettings(
                state_dir=tmp_path / "bridge", live_url=live_url, db_url=db_url, events_topic=topic,
                kafka=stack.kafka, environment="dev", max_steps=40, event_keys_file=keys,
            )  # fmt: skip
            bridge = build_bridge(settings, policy=reference_policy("rcm"))
            try:
                with serve_in_thread(bridge.app(), name="bridge-api") as api:
                    episodes, probe = _drive(api, claim, other)
                    assert bridge.capture.relay is not None and bridge.capture.relay.flush(60)
                    archive = SqlEventArchive(db_url)
                    rows = sum(len(bridge.capture.outbox.events(e)) for e in episodes)
                    wait_until(lambda: archive.count(source=settings.source) >= rows, "the archive", worker)
                    reader = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {REVIEWER}"})
                    api_reports = [reader.get(f"/v1/episodes/{e}/events").text for e in episodes]
                    api_reports += [reader.get(f"/v1/episodes/{e}").text for e in episodes]
                    time.sleep(1)  # the worker's edge cases of the closed episodes
                    api_reports.append(reader.get("/v1/edge-cases").text)
                    events = [e for ep in episodes for e in bridge.capture.outbox.events(ep)]
            finally:
                bridge.close()
    finally:
        worker.stop()

    messages = [*read_topic(stack.bootstrap_servers, topic, idle_timeout_s=3)]
    messages += read_topic(stack.bootstrap_servers, dlq, idle_timeout_s=3)
    places = {
        "topics": b"\n".join(
            (m.value or b"") + b"".join(v for _, v in m.headers if isinstance(v, bytes)) + (m.key or b"")
            for m in messages
        ),
        "read API": "\n".join(api_reports).encode(),
        **{
            str(path.relative_to(tmp_path)): path.read_bytes()
            for path in tmp_path.rglob("*")
            if path.is_file() and not path.name.startswith("sandbox.db")
        },
    }
    assert {"bridge.log", "worker.log", "archive.db", "bridge/outbox.db"} <= set(places)
    leaks = {
        where: sorted(k for k, v in probe.items() if v.lower().encode() in blob.lower())
        for where, blob in places.items()
    }
    assert {where: found for where, found in leaks.items() if found} == {}
    # Every kind of field was reached, and what is not PHI is still readable.
    kinds = {e["type"].split(".", 1)[1] for e in events}
    assert {"episode.started.v2", "tool.called.v1", "tool.returned.v1", "tool.failed.v1", "escalated.v1",
            "episode.ended.v1", "outcome.observed.v1"} <= kinds  # fmt: skip
    assert (
        b"CO-16" in places["topics"]
        and b"get_claim" in places["topics"]
        and b"close_claim" in places["topics"]
    )
    assert b"no_action_needed" in places["topics"] and b"disputes" in places["read API"]
    assert claim.patient_last_name.encode() in b"".join(p.read_bytes() for p in tmp_path.glob("sandbox.db*"))
