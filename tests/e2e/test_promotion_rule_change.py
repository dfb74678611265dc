"""Issue 12's acceptance run on the embedded stack: a payer changes a rule in the live system, the
episodes that meet it become an edge case, the case becomes a task draft, a billing specialist
approves it in a browser, and a validated task is published with `task.promoted`.

Real engines throughout: the session's broker and Temporal dev server (`stack`), the RCM sandbox
under uvicorn, the bridge built as `loopline bridge serve` builds it (review served over Temporal),
a `loopline streams worker` process, the promotion worker and starter as `loopline workflows worker
--with-starter` runs them, and Debian's chromium driven by Playwright.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from playwright.sync_api import sync_playwright

from adapters.drafting.store import DraftStore
from adapters.rcm import seed_world
from adapters.rcm.sandbox import SandboxAdmin, SandboxConfig, create_app
from adapters.serving import serve_in_thread
from bridge.api.auth import token_digest
from bridge.store import SqlEpisodeReader
from envs.rcm import generate_base
from envs.rcm.demo import training_vocabulary
from envs.rcm.rule_change import RETRO_WINDOW_SHORTENED
from envs.rcm.tasks import work_item_for
from envs.tasksets import TaskSetRegistry
from envs.validate import validate_task
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.demo.promotion import run_worker_thread
from loopline.demo.worker import streams_worker
from loopline.kafka.publisher import PROMOTION_SOURCE, signed_publisher
from loopline.kafka.topics import ensure_topics
from loopline.stack.binaries import temporal_bin
from loopline.streams.event_keys import ensure_keys, role_file
from tests.conftest import StackHandle
from workflows.settings import WorkflowsSettings

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
AGENT = {"Authorization": "Bearer dev-agent-token"}
SANDBOX_ADMIN_TOKEN = "e2e-sandbox-admin-token"
CHANGE = RETRO_WINDOW_SHORTENED


def wait_for(what: str, check: Callable[[], bool], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def promoted_events(stack: StackHandle, topic: str) -> list[dict[str, object]]:
    """Every `task.promoted` on the events topic (structured JSON values)."""
    consumer = Consumer(
        {**stack.kafka.client_config("consumer"), "group.id": f"scan-{topic}", "enable.auto.commit": False}
    )
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
    found: list[dict[str, object]] = []
    idle_until = time.monotonic() + 4
    while time.monotonic() < idle_until:
        message = consumer.poll(0.5)
        if message is None or message.error():
            continue
        idle_until = time.monotonic() + 2
        headers = dict(message.headers() or [])
        if headers.get("ce_type") in (b"loopline.task.promoted.v1", "loopline.task.promoted.v1"):
            found.append(json.loads(message.value() or b"{}"))
    consumer.close()
    return found


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    vocabulary = tmp_path / "training-vocabulary.json"
    vocabulary.write_text(json.dumps(training_vocabulary(generate_base(seed=0))))
    return tmp_path


@pytest.fixture
def sandbox() -> Iterator[str]:
    config = SandboxConfig(db_url="sqlite://", reset=True, admin_token=SANDBOX_ADMIN_TOKEN)
    with serve_in_thread(create_app(config), name="rcm-sandbox") as url:
        yield url


def test_a_payer_rule_change_becomes_a_task_a_specialist_approves_in_the_browser(
    stack: StackHandle, workdir: Path, sandbox: str, unique_topic: str
) -> None:
    topic, db_url = f"{unique_topic}.events.v1", f"sqlite:///{workdir / 'archive.db'}"
    ensure_topics(
        stack.kafka.client_config("admin"), [topic, topic.replace(".events.", ".dlq.")], partitions=2
    )

    # The payer shortens its retro-authorization window in the live system.
    admin = SandboxAdmin(sandbox, SANDBOX_ADMIN_TOKEN)
    before = admin.world().payer(CHANGE.payer_id).rules
    admin.set_rules(CHANGE.payer_id, CHANGE.rules(before))
    assert admin.world().payer(CHANGE.payer_id).rules.retro_auth_window_days == CHANGE.value
    admin.close()

    drafts = workdir / "drafts"
    ensure_keys(workdir / "keys")  # the folder the demo's worker reads (streams_worker)
    settings = BridgeSettings(
        state_dir=workdir / "bridge", live_url=sandbox, db_url=db_url, events_topic=topic, kafka=stack.kafka,
        environment="dev", max_steps=40, temporal_address=stack.temporal_address, drafts_dir=drafts,
        token_names={token_digest("dev-reviewer-token"): "Dana Whitfield"},
        event_keys_file=role_file("bridge", workdir / "keys"),
    )  # fmt: skip
    bridge = build_bridge(settings)
    workflows = WorkflowsSettings(
        temporal_address=stack.temporal_address, db_url=db_url, drafts_dir=drafts,
        tasksets_root=workdir / "tasksets", task_queue=f"e2e-{unique_topic[-8:]}", events_topic=topic,
    )  # fmt: skip
    publisher = signed_publisher(
        PROMOTION_SOURCE, stack.kafka, topic, key_file=role_file("promotion", workdir / "keys")
    )
    store, registry = DraftStore(drafts), TaskSetRegistry(workdir / "tasksets")
    vocabulary = workdir / "training-vocabulary.json"
    try:
        with (
            streams_worker(workdir, stack.kafka, db_url, topic, vocabulary),
            serve_in_thread(bridge.app(), name="bridge-api") as api,
        ):
            halt = run_worker_thread(workflows, publisher)
            try:
                # Production works the claims at that payer the rule decides.
                world = seed_world()
                with httpx.Client(base_url=api, headers=AGENT, timeout=120) as client:
                    for claim_id in CHANGE.affected_claims:
                        item = work_item_for(world, claim_id).model_dump(mode="json")
                        client.post("/v1/episodes", json={"work_item": item}).raise_for_status()
                reader = SqlEpisodeReader(db_url)
                wait_for(
                    "the rule change's edge case",
                    lambda: any(c.rule == "unknown_vocabulary" for c in reader.list_edge_cases(limit=50)),
                )
                case = next(c for c in reader.list_edge_cases(limit=50) if c.rule == "unknown_vocabulary")
                assert f"retro_auth_window_days '{CHANGE.value}' never seen in training" in case.summary
                wait_for("a draft waiting for review", lambda: bool(store.pending()))
                [waiting] = store.pending()
                draft = store.draft(waiting.draft_id)
                assert draft is not None and draft.work_item.item_id in CHANGE.affected_claims
                assert draft.fidelity.share == 1.0
                assert (
                    draft.world["payers"][CHANGE.payer_id]["rules"]["retro_auth_window_days"] == CHANGE.value
                )

                # A billing specialist approves the suggestion in the review page the bridge serves.
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
                    page = browser.new_page()
                    page.goto(f"{api}/review")
                    page.fill("#token", "dev-reviewer-token")
                    page.click("#sign-in")
                    page.wait_for_selector("#drafts")
                    page.click(f"text={waiting.draft_id}")
                    assert "the reference specialist solves it" in page.inner_text("#suggestion")
                    page.check("#decision-approve")
                    page.check("#judgement-pass")
                    page.fill("#reason", "the retro-authorization window is the payer's new one")
                    page.click("#decide")
                    page.wait_for_selector("#message", timeout=60_000)
                    assert "decision recorded: published, by Dana Whitfield" in page.inner_text("#message")
                    browser.close()
            finally:
                halt()
    finally:
        publisher.close()
        bridge.close()

    [version] = registry.versions("rcm-promoted")
    [task] = registry.load("rcm-promoted", version).tasks
    assert task.provenance.reviewer == "Dana Whitfield"
    assert validate_task(task).problems == ()
    events = promoted_events(stack, topic)
    assert [e.get("task_id") for e in events] == [task.task_id]
    listed = subprocess.run(
        [str(temporal_bin()), "workflow", "list", "--address", stack.temporal_address,
         "--query", f"WorkflowId = '{waiting.workflow_id}'"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    assert waiting.workflow_id in listed.stdout and "Completed" in listed.stdout
