"""A PHI scan of everything the bridge and the stream worker leave behind, after episodes that put PHI
in every free-text field: the topic and the dead-letter topic (values and headers), the archive, the
outbox, the checkpoints, both processes' logs (at INFO, as an operator turns them up), and the reports
read from it (`loopline inspect`, `loopline audit verify`, the read API). 0 raw values found.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from adapters.rcm import seed_world
from adapters.rcm.sandbox import SandboxConfig, create_app
from adapters.serving import serve_in_thread
from bridge.store import SqlEventArchive
from bridge.streams.topic_reader import read_topic
from envs.rollout import reference_policy
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.cli import app as cli
from loopline.kafka.topics import ensure_topics
from tests.bridge.streams.broker import WorkerProcess, embedded_worker_keys, wait_until
from tests.conftest import StackHandle

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

SSN, PHONE, EMAIL, STRANGER = "123-45-6789", "(217) 555-0143", "maria.lopez@example.com", "ZQX778812345"
AGENT, INTEGRATION, REVIEWER = "dev-agent-token", "dev-integration-token", "dev-reviewer-token"


@pytest.fixture
def process_log(tmp_path: Path) -> Iterator[Path]:
    """This process's log (the bridge's) at INFO, in a file."""
    path = tmp_path / "bridge.log"
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield path
    root.removeHandler(handler)
    root.setLevel(level)
    handler.close()


def _drive(api: str, claim_id: str, other_payer: str) -> tuple[list[str], list[str]]:
    """Episodes with PHI in every free-text field; returns their ids and the PHI the claim revealed."""
    agent = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {AGENT}"}, timeout=60)
    integration = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {INTEGRATION}"}, timeout=30)
    item = {"domain": "rcm", "kind": "denial", "item_id": claim_id, "payload": {"claim_id": claim_id},
            "instructions": f"Patient called from {PHONE}, SSN {SSN}; mail {EMAIL}."}  # fmt: skip
    run = agent.post("/v1/episodes", json={"work_item": item})
    assert run.status_code == 200, run.text
    opened = agent.post("/v1/gateway/episodes", json={"work_item": item})
    assert opened.status_code in (200, 201), opened.text
    episode_id = opened.json()["episode_id"]
    calls = f"/v1/gateway/episodes/{episode_id}"
    claim = agent.post(f"{calls}/calls", json={"name": "get_claim", "arguments": {"claim_id": claim_id}})
    data = claim.json()["result"]["claim"]
    name = f"{data['patient_first_name']} {data['patient_last_name']}"
    revealed = [name, name.upper(), data["patient_last_name"], data["patient_birth_date"], data["member_id"]]
    # Undeclared extra arguments, and a domain error that echoes the member id it was given.
    agent.post(f"{calls}/calls", json={"name": "get_claim",
                                       "arguments": {"claim_id": claim_id, "ssn": SSN, "note": f"for {name}"}})  # fmt: skip
    wrong = {
        "claim_id": claim_id,
        "payer_id": other_payer,
        "member_id": STRANGER,
        "payer_sequence": "secondary",
    }
    failed = agent.post(f"{calls}/calls", json={"name": "bill_other_payer", "arguments": wrong})
    assert STRANGER in failed.text  # the live system's answer to the agent does echo it
    eligible = agent.post(f"{calls}/calls", json={"name": "check_eligibility",
                                       "arguments": {"payer_id": data["payer_id"], "member_id": data["member_id"],
                                                     "service_date": "2026-01-05"}})  # fmt: skip
    assert eligible.json()["result"] is not None, eligible.text
    agent.post(f"{calls}/escalate", json={"reason": f"{name.upper()} (born {data['patient_birth_date']}) disputes",
                                          "recommendation": f"write to {EMAIL}"})  # fmt: skip
    agent.post(
        f"{calls}/close", json={"status": "escalated", "final_message": f"Handed {name} ({PHONE}) to billing"}
    )
    # The patient's name is PHI the gateway episode has seen; the policy's run may not have read it,
    # so its reference carries pattern-class PHI only (a name no record names is no pattern).
    refs = {run.json()["episode_id"]: f"ERA {SSN} / {PHONE}", episode_id: f"ERA {SSN} for {name}"}
    for episode, ref in refs.items():
        outcome = {"episode_id": episode, "kind": "paid", "item_id": claim_id,
                   "observed_at": "2026-02-01T00:00:00Z", "external_ref": ref}  # fmt: skip
        assert integration.post("/v1/outcomes", json=outcome).status_code == 202
    return [run.json()["episode_id"], episode_id], revealed


def test_no_raw_phi_in_topics_stores_logs_or_reports_after_phi_in_every_free_text_field(
    stack: StackHandle, unique_topic: str, tmp_path: Path, process_log: Path
) -> None:
    topic, dlq = f"{unique_topic}.events.v1", f"{unique_topic}.dlq.v1"
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq], partitions=2)
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    keys = embedded_worker_keys(tmp_path)
    world = seed_world()
    claim = next(c for c in world.claims.values() if c.status == "denied")
    other_payer = next(p for p in world.payers if p != claim.payer_id)
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
                    episodes, revealed = _drive(api, claim.claim_id, other_payer)
                    assert bridge.capture.relay is not None and bridge.capture.relay.flush(60)
                    archive = SqlEventArchive(db_url)
                    rows = sum(len(bridge.capture.outbox.events(e)) for e in episodes)
                    wait_until(lambda: archive.count(source=settings.source) >= rows, "the archive", worker)
                    reader = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {REVIEWER}"})
                    api_reports = [reader.get(f"/v1/episodes/{e}/events").text for e in episodes]
                    api_reports += [reader.get(f"/v1/episodes/{e}").text for e in episodes]
                    api_reports.append(reader.get("/v1/edge-cases").text)
            finally:
                bridge.close()
        time.sleep(1)  # the worker's last edge cases
    finally:
        worker.stop()

    inspect = [CliRunner().invoke(cli, ["inspect", e, "--db-url", db_url]).output for e in episodes]
    audit = CliRunner().invoke(
        cli,
        [
            "audit",
            "verify",
            "--db-url",
            db_url,
            "--event-keys",
            str(tmp_path / "event-keys.json"),
            "--skip",
            "checkpoints",
            "--skip",
            "event-topic",
        ],
    )
    assert audit.exit_code == 0, audit.output
    messages = [*read_topic(stack.bootstrap_servers, topic, idle_timeout_s=3)]
    messages += read_topic(stack.bootstrap_servers, dlq, idle_timeout_s=3)
    assert len(messages) > rows
    places = {
        "topics": b"\n".join(
            (m.value or b"") + b"".join(v for _, v in m.headers if isinstance(v, bytes)) for m in messages
        ),
        "reports": "\n".join([*inspect, audit.output, *api_reports]).encode(),
        **{
            str(path.relative_to(tmp_path)): path.read_bytes()
            for path in tmp_path.rglob("*")
            if path.is_file() and not path.name.startswith("sandbox.db")
        },
    }
    assert {"bridge.log", "worker.log", "archive.db", "bridge/outbox.db"} <= set(places)
    raw = {SSN, PHONE, EMAIL, STRANGER, *revealed}
    leaks = {
        where: sorted(v for v in raw if v.lower().encode() in blob.lower()) for where, blob in places.items()
    }
    assert {where: found for where, found in leaks.items() if found} == {}
    # The scan can see PHI: the live system's own database holds it, and the events are readable.
    sandbox_bytes = b"".join(p.read_bytes() for p in tmp_path.glob("sandbox.db*"))
    assert claim.patient_last_name.encode() in sandbox_bytes
    assert b"disputes" in places["reports"] and claim.claim_id.encode() in places["topics"]
    assert b"INFO httpx HTTP Request" in places["bridge.log"] and b"INFO" in places["worker.log"]
