"""The review desk end to end: a real promotion workflow (Temporal's time-skipping server), the
bridge API under uvicorn, and a billing specialist's browser (Playwright driving Debian's chromium,
headless) signing in, reading a draft, and approving or rejecting it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page, async_playwright
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters import Toolbox
from adapters.drafting.store import DraftStore
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from adapters.serving import serve_in_thread
from adapters.surrogates import TOKEN
from bridge.api.app import create_app
from bridge.api.auth import Role, TokenTable
from bridge.api.review import Reviewing
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive
from engine import EpisodeConfig, ScriptedPolicy, say
from envs.rcm import generate_base
from envs.tasksets import TaskSetRegistry
from loopline.bridge.app import rcm_services
from schemas import Event
from tests.workflows.episodes import raw_phi, record, redactor
from workflows.promotion.activities import PromotionActivities
from workflows.promotion.client import TemporalReviewDesk, start_promotion
from workflows.promotion.models import ReviewTimers
from workflows.promotion.sources import archive_events
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow, workflow_id_for
from workflows.worker import build_worker

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
TOKENS = {"agent-token": Role.AGENT, "reviewer-token": Role.REVIEWER}
TASK = next(t for t in generate_base(seed=4, per_carc=1) if "carc:50" in t.tags)


@dataclass
class Desk:
    url: str
    client: Client
    store: DraftStore
    registry: TaskSetRegistry
    queue: str
    episode: list[Event]
    published: list[dict[str, Any]]

    async def promote(self, fingerprint: str) -> str:
        await start_promotion(
            self.client, fingerprint=fingerprint, episode_id=self.episode[0].episodeid, rule="escalation",
            queue=self.queue, timers=ReviewTimers(),
        )  # fmt: skip
        handle = self.client.get_workflow_handle_for(
            PromoteEdgeCaseWorkflow.run, workflow_id_for(fingerprint)
        )
        for _ in range(400):
            state = await handle.query(PromoteEdgeCaseWorkflow.state)
            if state.stage == "awaiting_review" and state.draft_id:
                return state.draft_id
            await asyncio.sleep(0.05)
        raise AssertionError("the draft never reached review")


@pytest.fixture
def bridge_parts(tmp_path: Path) -> Iterator[tuple[CaptureService, SqlEventArchive]]:
    capture = CaptureService.open(
        CaptureConfig(
            tenant="acme", source="loopline://bridge/test", outbox_path=tmp_path / "outbox.db",
            vault_url=f"sqlite:///{tmp_path / 'vault.db'}", environment="test",
        )
    )  # fmt: skip
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    yield capture, archive
    capture.close()


@pytest.fixture
async def desk(
    temporal_env: WorkflowEnvironment,
    task_queue: str,
    tmp_path: Path,
    bridge_parts: tuple[CaptureService, SqlEventArchive],
) -> AsyncIterator[Desk]:
    capture, archive = bridge_parts
    episode = record(TASK, redactor(tmp_path))
    archive.append([ArchiveRecord.of(event) for event in episode])  # as the projector would
    reader = SqlEpisodeReader(archive.engine)
    config = temporal_env.client.config()
    config["data_converter"] = pydantic_data_converter
    client = Client(**config)
    store, registry = DraftStore(tmp_path / "drafts"), TaskSetRegistry(tmp_path / "tasksets")
    published: list[dict[str, Any]] = []
    activities = PromotionActivities(
        store=store, episode_events=archive_events(reader), registry=registry, publish=published.append
    )
    services = rcm_services(
        capture, Toolbox(RCM_TOOLS, SimBackend(seed_world())), ScriptedPolicy(lambda _: say("done")),  # type: ignore[arg-type]
        EpisodeConfig(max_steps=2), archive,
    )  # fmt: skip
    review_desk = TemporalReviewDesk(temporal_env.client.service_client.config.target_host, store)
    services = dataclasses.replace(services, review=Reviewing(store, review_desk))
    app = create_app(services, TokenTable.from_tokens(TOKENS))
    async with build_worker(client, activities, queue=task_queue, threads=2):
        with serve_in_thread(app, name="bridge-review") as url:
            yield Desk(url, client, store, registry, task_queue, episode, published)
    review_desk.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield launched
        await launched.close()


async def sign_in(page: Page, url: str) -> None:
    await page.goto(f"{url}/review")
    assert page.url.endswith("/review/login")
    await page.fill("#token", "reviewer-token")
    await page.click("#sign-in")
    await page.wait_for_selector("#drafts")


async def test_a_specialist_approves_a_draft_in_the_browser_and_it_is_published(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f1" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.click(f"text={draft_id}")
    assert "calls reproduced exactly (1.00" in await page.inner_text("#fidelity")
    assert await page.locator("#timeline tbody tr").count() == len(desk.episode)
    assert "the reference specialist solves it" in await page.inner_text("#suggestion")
    assert "Not validated yet" in await page.inner_text("#validation")
    html = await page.content()
    assert TOKEN.search(html.split('id="timeline"')[0]) is None  # the draft shows surrogates, never tokens
    assert sorted(v for v in raw_phi(TASK.initial_world) if v in html) == []
    await page.fill("#approve-reviewer", "Dana Whitfield")
    await page.click("#approve")
    await page.wait_for_selector("#message")
    assert "decision recorded: published" in await page.inner_text("#message")
    assert await page.inner_text("#stage") == "published"
    assert "every gate held" in await page.inner_text("#validation")
    assert "rcm-promoted v1" in await page.inner_text("#published")
    task = desk.registry.load("rcm-promoted").tasks[0]
    assert task.provenance.reviewer == "Dana Whitfield"
    assert [e["type"] for e in desk.published] == ["loopline.task.promoted.v1"]


async def test_an_edited_spec_the_gold_misses_comes_back_with_the_reason_then_a_rejection_ends_it(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f2" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    spec = json.loads(await page.input_value("#spec"))
    spec["outcome"]["must"] = [
        {
            "name": "appealed",
            "reason": "the reviewer wants an appeal",
            "collection": "appeals",
            "where": {"new": True},
        }
    ]
    await page.fill("#spec", json.dumps(spec))
    await page.fill("#approve-reviewer", "Dana Whitfield")
    await page.click("#approve")
    await page.wait_for_selector("#message")
    assert "decision recorded: returned" in await page.inner_text("#message")
    assert await page.inner_text("#stage") == "returned"
    assert "gold solution scores" in await page.inner_text("#problems")
    await page.fill("#reject-reviewer", "Dana Whitfield")
    await page.fill("#reason", "not a real case: the payer fixed its feed")
    await page.click("#reject")
    await page.wait_for_selector("#message")
    assert await page.inner_text("#stage") == "rejected"
    assert desk.registry.versions("rcm-promoted") == [] and desk.published == []


async def test_the_review_api_admits_reviewers_only_and_answers_unknown_drafts_with_404(desk: Desk) -> None:
    draft_id = await desk.promote("f3" * 16)
    async with httpx.AsyncClient(base_url=desk.url, timeout=60) as http:
        reviewer = {"Authorization": "Bearer reviewer-token"}
        listed = (await http.get("/v1/review/drafts", headers=reviewer)).json()
        assert [row["status"]["draft_id"] for row in listed] == [draft_id]
        assert (
            await http.get("/v1/review/drafts", headers={"Authorization": "Bearer agent-token"})
        ).status_code == 403
        assert (await http.get("/v1/review/drafts")).status_code == 401
        assert (await http.get("/v1/review/drafts/draft-nope", headers=reviewer)).status_code == 404
        shown = (await http.get(f"/v1/review/drafts/{draft_id}", headers=reviewer)).json()
        assert shown["suggestion"]["solved"] is True and shown["draft"]["fidelity"]["share"] == 1.0
        bad = await http.post(
            f"/v1/review/drafts/{draft_id}/reject", headers=reviewer, json={"reviewer": "x"}
        )
        assert bad.status_code == 422
        answer = await http.post(
            f"/v1/review/drafts/{draft_id}/approve", headers=reviewer, json={"reviewer": "Dana"}
        )
        assert answer.status_code == 200 and answer.json()["stage"] == "published"
        again = await http.post(
            f"/v1/review/drafts/{draft_id}/approve", headers=reviewer, json={"reviewer": "Dana"}
        )
        assert again.status_code == 409 and "not waiting" in again.json()["detail"]
