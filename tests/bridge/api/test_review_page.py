"""The review desk end to end: a real promotion workflow (Temporal's time-skipping server), the
bridge API under uvicorn, and a billing specialist's browser (Playwright driving Debian's chromium,
headless) signing in, reading a draft as a billing specialist does, and deciding it with the form;
and the page's defences: server-side sessions that expire and end, CSRF tokens, the Origin check,
the signed-in identity as the reviewer of every decision and label."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from playwright.async_api import Browser, Page, async_playwright
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters import Toolbox
from adapters.drafting.store import DraftStore, Notification
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from adapters.serving import serve_in_thread
from adapters.surrogates import TOKEN
from bridge.api.app import create_app
from bridge.api.auth import Identity, Role, TokenTable
from bridge.api.review import Reviewing
from bridge.api.review_form import FORBIDDEN_REASON
from bridge.api.review_sessions import COOKIE, ReviewSessions
from bridge.capture import CaptureConfig, CaptureService
from bridge.phi import PhiKeys, PhiVault
from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive
from bridge.store.labels import ExpertLabel, SqlLabelStore
from bridge.store.review_sessions import SqlSessionStore
from engine import EpisodeConfig, ScriptedPolicy, say
from envs.domain import DOMAINS
from envs.rcm import generate_base
from envs.tasksets import TaskSetRegistry
from loopline.bridge.app import rcm_services
from loopline.bridge.review_agreement import review_agreements
from loopline.bridge.review_domains import review_domains
from loopline.card.agreement import archived_agreement
from loopline.demo.promotion import true_resolution
from schemas import EpisodeChain, Event
from schemas.events import OutcomeObserved
from schemas.tasks import CallConstraint, VerifierSpec
from tests.bridge.api import demo_drafts
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
TOKENS: dict[str, Role | Identity] = {
    "agent-token": Role.AGENT,
    "reviewer-token": Identity(Role.REVIEWER, "Dana Whitfield"),
    "other-reviewer-token": Identity(Role.REVIEWER, "Sam Okafor"),
    "operator-token": Identity(Role.OPERATOR, "Olu Adeyemi"),
}
TTL_S = 600.0


@dataclass
class Clock:
    """The sessions' clock, moved by the tests."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


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
    clock: Clock
    labels: SqlLabelStore
    archive: SqlEventArchive
    another_bridge: Callable[[], FastAPI]

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
    clock = Clock()
    # Sessions in the archive's database, as a deployed bridge keeps them.
    session_store = SqlSessionStore(archive.engine)
    session_store.create_schema()
    sessions = ReviewSessions(ttl_s=TTL_S, max_attempts=3, window_s=60.0, clock=clock, store=session_store)
    # The vault the episode's PHI was tokenised into (the recording's key), for document reveals.
    vault = PhiVault.open(f"sqlite:///{tmp_path / 'vault.db'}", PhiKeys.from_master(b"w" * 32))
    agreements = review_agreements(str(archive.engine.url))
    reviewing = Reviewing(store, review_desk, sessions, review_domains(), vault=vault, agreements=agreements)
    services = dataclasses.replace(services, review=reviewing)
    app = create_app(services, TokenTable.from_tokens(TOKENS))
    assert services.labelling is not None

    def another_bridge() -> FastAPI:
        """A second bridge process on the same databases: its sessions are read from the archive's."""
        store_again = SqlSessionStore(SqlEventArchive(str(archive.engine.url)).engine)
        again = ReviewSessions(ttl_s=TTL_S, clock=clock, store=store_again)
        fresh = dataclasses.replace(services, review=dataclasses.replace(reviewing, sessions=again))
        return create_app(fresh, TokenTable.from_tokens(TOKENS))

    async with build_worker(client, activities, queue=task_queue, threads=2):
        with serve_in_thread(app, name="bridge-review") as url:
            yield Desk(
                url, client, store, registry, task_queue, episode, published, clock, services.labelling.labels,
                archive, another_bridge,
            )  # fmt: skip
    review_desk.close()
    vault.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield launched
        await launched.close()


async def sign_in(page: Page, url: str, token: str = "reviewer-token") -> None:
    await page.goto(f"{url}/review")
    assert page.url.endswith("/review/login")
    await page.fill("#token", token)
    await page.click("#sign-in")
    await page.wait_for_selector("#drafts")


async def edit_spec(page: Page, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Open the advanced view, change the spec's JSON, and tick "use this JSON"."""
    await page.click("#advanced summary")
    spec: dict[str, Any] = json.loads(await page.input_value("#spec-json"))
    change(spec)
    await page.fill("#spec-json", json.dumps(spec))
    await page.check("#use-json")
    return spec


def _gold_tools(desk: Desk, draft_id: str) -> set[str]:
    suggestion = desk.store.suggestion(draft_id)
    assert suggestion is not None
    return {c.name for c in suggestion.gold}


async def test_a_specialist_decides_a_draft_with_the_form_alone_and_it_is_published(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f1" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    assert await page.inner_text("#who") == "Dana Whitfield"
    cookies = await page.context.cookies()
    [cookie] = [c for c in cookies if c["name"] == COOKIE]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and "reviewer-token" not in cookie["value"]
    await page.click(f"text={draft_id}")
    # The case as a billing specialist reads it: the ERA's codes in words, the claim, the deadlines, the documents.
    era = await page.inner_text("table[id^=remittance-lines-]")
    assert "CO-50" in era and "not deemed a 'medical necessity'" in era and "Contractual obligation" in era
    assert "93000" in await page.inner_text("#claim-lines")
    assert "days from the remittance" in await page.inner_text("#deadlines")
    assert "Advance Beneficiary Notice" in await page.inner_text("#documents")
    assert "calls reproduced exactly (1.00" in await page.inner_text("#fidelity")
    assert await page.locator("#timeline tbody tr").count() == len(desk.episode)
    assert "the reference specialist solves it" in await page.inner_text("#suggestion")
    assert "Not validated yet" in await page.inner_text("#validation")
    # Before anything is committed, the page shows what the gates say about the suggested spec.
    assert "The gates hold for this spec" in await page.inner_text("#preview-verdict")
    assert (
        "1.00" in await page.inner_text("#preview-gates") and "#preview-problems" not in await page.content()
    )
    assert await page.locator("#duplicates").count() == 0
    missing = await page.goto(f"{desk.url}/review/drafts/draft-nope")
    assert missing is not None and missing.status == 404
    assert "unknown draft 'draft-nope'" in await page.inner_text("#refused")
    await page.go_back()
    html = await page.content()
    assert TOKEN.search(html.split('id="timeline"')[0]) is None  # the draft shows surrogates, never tokens
    assert sorted(v for v in raw_phi(TASK.initial_world) if v in html) == []
    assert await page.locator("textarea[name=spec], input[name=reviewer]").count() == 0
    # The suggestion forbids no call by name; the specialist marks what must not happen.
    gold = _gold_tools(desk, draft_id)
    assert await page.locator("#forbidden-tools input:checked").count() == 0
    forbid = next(t for t in ("submit_appeal", "post_write_off", "submit_replacement_claim") if t not in gold)
    await page.check("#decision-approve")
    await page.check("#judgement-fail")
    await page.fill("#reason", "the agent escalated a case the ABN on file settles")
    await page.check(f"#forbid-{forbid}")
    await page.click("#decide")
    # The choices changed the spec since its preview: the page shows the gates on it and sends nothing.
    assert "not sent yet" in await page.inner_text("#message") and desk.published == []
    assert "The gates hold for this spec" in await page.inner_text("#preview-verdict")
    assert await page.is_checked(f"#forbid-{forbid}") and await page.input_value("#reason")
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert "decision recorded: published, by Dana Whitfield" in await page.inner_text("#message")
    assert await page.inner_text("#stage") == "published"
    assert "every gate held" in await page.inner_text("#validation")
    assert "rcm-promoted v1" in await page.inner_text("#published")
    task = desk.registry.load("rcm-promoted").tasks[0]
    assert task.provenance.reviewer == "Dana Whitfield"
    assert [c.tool for c in task.verifier.forbidden_calls] == [forbid]  # the published spec is the form's
    assert [e["type"] for e in desk.published] == ["loopline.task.promoted.v1"]
    [label] = desk.labels.list_labels(subject=desk.episode[0].episodeid)
    assert (label.reviewer, label.label, label.source) == ("Dana Whitfield", "fail", "reviewer")


async def test_a_form_with_problems_lists_them_sends_nothing_and_keeps_the_choices(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f4" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    [used, *_] = [t for t in review_domains()["rcm"].write_tools if t in _gold_tools(desk, draft_id)]
    await page.check("#decision-approve")
    await page.check(f"#forbid-{used}")
    await page.click("#decide")
    problems = await page.inner_text("#form-problems")
    assert "say whether the episode handled the case right" in problems
    assert "give a reason" in problems
    assert f"{used} is part of the suggested resolution" in problems
    assert await page.inner_text("#stage") == "awaiting_review" and desk.published == []
    # What the specialist chose is kept; they correct it and send it again.
    assert await page.is_checked("#decision-approve") and await page.is_checked(f"#forbid-{used}")
    await page.uncheck(f"#forbid-{used}")
    await page.check("#judgement-pass")
    await page.fill("#reason", "the resolution fits the ABN on file")
    await page.click("#preview")
    assert "gates previewed" in await page.inner_text("#message")
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert await page.inner_text("#stage") == "published"
    assert await page.locator("#form-problems").count() == 0


async def test_an_edited_spec_the_gold_misses_comes_back_with_the_reason_then_a_rejection_ends_it(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f2" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    appealed = {"name": "appealed", "reason": "the reviewer wants an appeal", "collection": "appeals",
                "where": {"new": True}}  # fmt: skip
    await edit_spec(page, lambda spec: spec["outcome"].update(must=[appealed]))
    await page.check("#decision-approve")
    await page.check("#judgement-pass")
    await page.fill("#reason", "an appeal is the right move")
    await page.click("#decide")
    # The edited spec was never previewed: the page shows that it fails its own gate, and why.
    assert "not sent yet" in await page.inner_text("#message")
    assert "fails its own gate" in await page.inner_text("#preview-verdict")
    assert "gold solution scores" in await page.inner_text("#preview-problems")
    assert await page.inner_text("#stage") == "awaiting_review"
    await page.click("#decide")  # sent anyway, as previewed
    await page.wait_for_selector("#message")
    assert "decision recorded: returned" in await page.inner_text("#message")
    assert await page.inner_text("#stage") == "returned"
    assert "gold solution scores" in await page.inner_text("#problems")
    await page.check("#decision-reject")
    await page.check("#judgement-pass")
    await page.fill("#reason", "not a real case: the payer fixed its feed")
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert await page.inner_text("#stage") == "rejected"
    assert desk.registry.versions("rcm-promoted") == [] and desk.published == []


async def test_a_specialist_corrects_a_wrong_suggestion_with_another_resolution_and_its_amount(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("e1" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    # The reference billed the patient under the ABN; the specialist judges the write-off right instead.
    assert "transfer_to_patient_responsibility" in await page.inner_text("#suggestion")
    await page.check("#decision-approve")
    await page.check("#judgement-fail")
    await page.fill(
        "#reason", "the ABN is not valid for this service: write the $39.00 off, do not bill the patient"
    )
    await page.check("#reference-replace")
    await page.check("#pick-post_write_off")
    offered = await page.eval_on_selector_all("#case-amounts option", "os => os.map(o => o.value)")
    assert "39.00" in offered  # the amounts come from the case
    await page.fill("#post_write_off-amount", "39.00")
    await page.select_option("#post_write_off-reason_code", "not_medically_necessary")
    await page.click("#preview")
    assert "The gates hold for this spec" in await page.inner_text("#preview-verdict")
    assert await page.is_checked("#reference-replace") and await page.is_checked("#pick-post_write_off")
    assert await page.input_value("#post_write_off-amount") == "39.00"
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert "decision recorded: published" in await page.inner_text("#message")
    task = desk.registry.load("rcm-promoted").tasks[0]
    assert task.verifier.outcome is not None
    [resolution] = task.verifier.outcome.resolutions
    assert resolution.name == "reviewer:post_write_off" and resolution.assertions[0].total == 39.0
    # The published task's gold is the specialist's resolution, after the reference's reads.
    assert [c.name for c in task.gold_solution][-1] == "post_write_off"
    assert "transfer_to_patient_responsibility" not in [c.name for c in task.gold_solution]


async def test_a_spec_that_fails_its_own_gate_shows_so_in_the_preview_and_is_fixed_in_the_form(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("e2" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    spec = await edit_spec(page, lambda spec: spec.update(outcome={"must": []}))  # doing nothing would pass
    await page.click("#preview")
    assert "gates previewed" in await page.inner_text("#message")
    assert "fails its own gate" in await page.inner_text("#preview-verdict")
    assert "doing nothing" in await page.inner_text("#preview-problems")
    # A preview decides and stores nothing: no report, no label, the draft still waits.
    assert await page.inner_text("#stage") == "awaiting_review"
    assert not (desk.store.root / "reports").exists() and desk.published == []
    assert desk.labels.list_labels(subject=desk.episode[0].episodeid) == []
    # Back to the form's own choices: the gates hold, and the decision goes through.
    await page.uncheck("#use-json")
    await page.click("#preview")
    assert "The gates hold for this spec" in await page.inner_text("#preview-verdict")
    await page.check("#decision-approve")
    await page.check("#judgement-pass")
    await page.fill("#reason", "the ABN on file makes the patient responsible")
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert await page.inner_text("#stage") == "published"
    # The JSON API previews too, for reviewers only.
    async with httpx.AsyncClient(base_url=desk.url, timeout=60) as http:
        url = f"/v1/review/drafts/{draft_id}/preview"
        good = await http.post(url, json={}, headers={"Authorization": "Bearer reviewer-token"})
        bad = await http.post(url, json={"spec": spec}, headers={"Authorization": "Bearer reviewer-token"})
        agent = await http.post(url, json={}, headers={"Authorization": "Bearer agent-token"})
    assert good.status_code == 200 and good.json()["report"]["ok"] is True
    assert bad.status_code == 200 and bad.json()["report"]["ok"] is False and bad.json()["report"]["problems"]
    assert agent.status_code == 403


async def test_a_documents_real_text_is_revealed_on_request_only_and_every_reveal_is_logged(
    desk: Desk, browser: Browser, tmp_path: Path
) -> None:
    draft_id = await desk.promote("e3" * 16)
    returned = [
        e.model_dump(mode="json")["data"] for e in desk.episode if e.type == "loopline.tool.returned.v1"
    ]
    read = [d["result"]["document"]["document_id"] for d in returned if d["name"] == "read_document"]
    [doc_id] = read
    unread = next(d for d in TASK.initial_world["documents"] if d not in read)
    real = TASK.initial_world["documents"][doc_id]["text"]
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    assert real not in await page.content()  # not shown by default
    before = datetime.now(UTC)
    await page.click(f"#reveal-{doc_id}")
    assert "the reveal is logged" in await page.inner_text("#message")
    assert real.splitlines()[0] in await page.inner_text(f"#revealed-{doc_id}")
    log = await page.inner_text("#access-log")
    assert "Dana Whitfield" in log and doc_id in log and "revealed" in log
    # The next look at the draft shows the surrogate again, and the access log.
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    assert real not in await page.content() and doc_id in await page.inner_text("#access-log")
    # A document the episode never read has no text to reveal: refused, and logged too.
    await page.click(f"#reveal-{unread}")
    assert "never read the text" in await page.inner_text("#message")
    assert [(r.reviewer, r.document_id, r.granted) for r in desk.store.reveals(draft_id)] == [
        ("Dana Whitfield", doc_id, True), ("Dana Whitfield", unread, False)
    ]  # fmt: skip
    assert all(before <= r.at <= datetime.now(UTC) for r in desk.store.reveals(draft_id))  # and when
    # The vault audits the token it revealed, under the reviewer's role and name.
    conn = sqlite3.connect(tmp_path / "vault.db")
    audit = conn.execute("SELECT role, actor, granted FROM phi_reveals").fetchall()
    conn.close()
    assert audit == [("reviewer", "Dana Whitfield", 1)]
    # Without the session's CSRF token, nothing is revealed or logged.
    [cookie] = [c for c in await page.context.cookies() if c["name"] == COOKIE]
    async with httpx.AsyncClient(base_url=desk.url, cookies={COOKIE: cookie["value"]}, timeout=60) as http:
        forged = await http.post(f"/review/drafts/{draft_id}/documents/{doc_id}/reveal", data={"csrf": "x"})
        api = await http.post(
            f"/v1/review/drafts/{draft_id}/documents/{doc_id}/reveal",
            headers={"Authorization": "Bearer other-reviewer-token"},
        )
    assert forged.status_code == 403 and real not in forged.text
    assert api.status_code == 200 and api.json()["text"] == real
    assert [r.reviewer for r in desk.store.reveals(draft_id)][-1] == "Sam Okafor"
    assert len(desk.store.reveals(draft_id)) == 3


async def test_a_second_draft_of_the_same_case_is_flagged_before_review(desk: Desk, browser: Browser) -> None:
    first = await desk.promote("f5" * 16)
    second = await desk.promote("f6" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    for draft_id, other in ((second, first), (first, second)):
        row = page.locator(f"#drafts tr:has(a[href$='/{draft_id}'])")
        assert f"possible duplicate of {other}" in await row.inner_text()
    await page.goto(f"{desk.url}/review/drafts/{second}")
    assert first in await page.inner_text("#duplicates")
    assert await page.inner_text("#stage") == "awaiting_review"


async def test_a_cross_site_post_is_refused(desk: Desk, browser: Browser) -> None:
    draft_id = await desk.promote("f7" * 16)
    context = await browser.new_context()
    page = await context.new_page()
    await sign_in(page, desk.url)
    # Another site's page, in the same signed-in browser, posts a decision to the review desk.
    attacker = "http://attacker.example/"
    form = (
        f'<form id="f" method="post" action="{desk.url}/review/drafts/{draft_id}/decide">'
        '<input name="decision" value="reject"><input name="judgement" value="pass">'
        '<input name="reason" value="forged"></form><script>document.getElementById("f").submit()</script>'
    )
    await page.route(attacker, lambda route: route.fulfill(status=200, content_type="text/html", body=form))
    async with page.expect_navigation(url=re.compile(re.escape(desk.url))):
        await page.goto(attacker)
    await page.wait_for_load_state()
    assert "another site" in await page.inner_text("#refused")
    # The same post with the session cookie and the right CSRF token, from another Origin, is refused too.
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    csrf = await page.input_value("#decision-form input[name=csrf]")
    [cookie] = [c for c in await context.cookies() if c["name"] == COOKIE]
    fields = {"csrf": csrf, "decision": "reject", "judgement": "pass", "reason": "forged"}
    async with httpx.AsyncClient(base_url=desk.url, cookies={COOKIE: cookie["value"]}, timeout=60) as http:
        url = f"/review/drafts/{draft_id}/decide"
        cross = await http.post(url, data=fields, headers={"Origin": attacker.rstrip("/")})
        assert cross.status_code == 403
        wrong = await http.post(url, data=fields | {"csrf": "not-the-token"})
        assert wrong.status_code == 403 and "token" in wrong.text
        absent = await http.post(url, data={k: v for k, v in fields.items() if k != "csrf"})
        assert absent.status_code == 403 and "token" in absent.text
    assert desk.store.status(draft_id).stage == "awaiting_review"  # type: ignore[union-attr]
    await context.close()


async def test_an_expired_or_ended_session_is_refused(desk: Desk, browser: Browser) -> None:
    draft_id = await desk.promote("f8" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    await page.check("#decision-reject")
    await page.check("#judgement-pass")
    await page.fill("#reason", "sent after the session expired")
    desk.clock.now += TTL_S + 1
    await page.click("#decide")
    await page.wait_for_selector("#sign-in")
    assert page.url.endswith("/review/login")
    assert desk.store.status(draft_id).stage == "awaiting_review"  # type: ignore[union-attr]
    # Signed in again, then signed out: the old session id no longer opens anything.
    await sign_in(page, desk.url)
    [old] = [c for c in await page.context.cookies() if c["name"] == COOKIE]
    await page.click("#sign-out")
    await page.wait_for_selector("#sign-in")
    async with httpx.AsyncClient(base_url=desk.url, cookies={COOKIE: old["value"]}, timeout=60) as http:
        assert (await http.get("/review")).status_code == 303
        replay = await http.post(
            f"/review/drafts/{draft_id}/decide",
            data={"decision": "reject", "judgement": "pass", "reason": "x"},
        )
        assert replay.status_code == 303 and replay.headers["location"] == "/review/login"
    assert desk.store.status(draft_id).stage == "awaiting_review"  # type: ignore[union-attr]


async def test_a_restarted_bridge_or_another_pod_keeps_the_reviewer_signed_in(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("e4" * 16)
    context = await browser.new_context()
    page = await context.new_page()
    await sign_in(page, desk.url)
    with serve_in_thread(desk.another_bridge(), name="bridge-review-2") as other:
        # The same browser session (cookies are per host, not per port), answered by a bridge
        # that never saw the sign-in.
        await page.goto(f"{other}/review/drafts/{draft_id}")
        assert page.url.endswith(f"/review/drafts/{draft_id}")
        assert await page.inner_text("#who") == "Dana Whitfield"
        await page.click("#sign-out")
        await page.wait_for_url(re.compile(r".*/review/login$"))
    # Signed out on one, signed out on all.
    await page.goto(f"{desk.url}/review")
    assert page.url.endswith("/review/login")


async def test_the_reviewer_is_the_signed_in_identity_whatever_the_request_says(
    desk: Desk, browser: Browser
) -> None:
    draft_id = await desk.promote("f9" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url, "other-reviewer-token")
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    await page.evaluate(
        """() => { const f = document.getElementById('decision-form');
        for (const [n, v] of [['reviewer', 'Mallory'], ['reviewer_name', 'Mallory']]) {
          const i = document.createElement('input'); i.type = 'hidden'; i.name = n; i.value = v; f.appendChild(i); } }"""
    )
    await page.check("#decision-reject")
    await page.check("#judgement-fail")
    await page.fill("#reason", "the write-off was not approved")
    await page.click("#decide")
    await page.wait_for_selector("#message")
    assert "by Sam Okafor" in await page.inner_text("#message")
    note = desk.store.note(desk.store.status(draft_id).note_id or "")  # type: ignore[union-attr]
    assert note is not None and note.reviewer == "Sam Okafor"
    assert [x.reviewer for x in desk.labels.list_labels(subject=desk.episode[0].episodeid)] == ["Sam Okafor"]


async def test_the_review_api_admits_reviewers_only_and_records_the_caller(desk: Desk) -> None:
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
        bad = await http.post(f"/v1/review/drafts/{draft_id}/reject", headers=reviewer, json={})
        assert bad.status_code == 422
        named = await http.post(
            f"/v1/review/drafts/{draft_id}/approve", headers=reviewer, json={"reviewer": "Mallory"}
        )
        assert named.status_code == 422  # a body cannot name the reviewer
        answer = await http.post(
            f"/v1/review/drafts/{draft_id}/approve", headers=reviewer, json={"judgement": "pass"}
        )
        assert answer.status_code == 200 and answer.json()["stage"] == "published"
        assert answer.json()["reviewer"] == "Dana Whitfield" and answer.json()["label"]["label"] == "pass"
        again = await http.post(f"/v1/review/drafts/{draft_id}/approve", headers=reviewer, json={})
        assert again.status_code == 409 and "not waiting" in again.json()["detail"]


async def test_an_agent_token_cannot_sign_in_and_failed_sign_ins_are_limited(desk: Desk) -> None:
    async with httpx.AsyncClient(base_url=desk.url, timeout=60) as http:
        for _ in range(3):  # the fixture allows 3 failures a minute
            failed = await http.post("/review/login", data={"token": "agent-token"})
            assert failed.status_code == 303 and failed.headers["location"].endswith("failed=true")
            assert COOKIE not in failed.cookies
        limited = await http.post("/review/login", data={"token": "reviewer-token"})
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0
        desk.clock.now += 61
        signed = await http.post("/review/login", data={"token": "reviewer-token"})
        assert signed.status_code == 303 and signed.headers["location"] == "/review"
        assert "reviewer-token" not in signed.headers["set-cookie"]
        assert "secure" not in signed.headers["set-cookie"].lower()  # plain http: no Secure flag
        host = httpx.URL(desk.url).netloc.decode()
        over_https = await http.post(
            "/review/login",
            data={"token": "reviewer-token"},
            headers={"X-Forwarded-Proto": "https", "Origin": f"https://{host}"},  # behind a TLS proxy
        )
        assert over_https.status_code == 303 and "secure" in over_https.headers["set-cookie"].lower()
        cross = await http.post(
            "/review/login", data={"token": "reviewer-token"}, headers={"Origin": "http://attacker.example"}
        )
        assert cross.status_code == 403


async def test_the_console_lists_every_draft_and_its_state_and_operators_only_see_it(
    desk: Desk, browser: Browser
) -> None:
    published = await desk.promote("fa" * 16)
    waiting = await desk.promote("fb" * 16)
    async with httpx.AsyncClient(base_url=desk.url, timeout=60) as http:
        answer = await http.post(
            f"/v1/review/drafts/{published}/approve",
            headers={"Authorization": "Bearer reviewer-token"},
            json={"judgement": "pass"},
        )
        assert answer.json()["stage"] == "published"
    # A second reviewer labels the same episode differently, and both label two more the same way.
    episode = desk.episode[0].episodeid
    for subject, reviewer, label in ((episode, "Sam Okafor", "fail"), ("ep-2", "Dana Whitfield", "pass"),
                                     ("ep-2", "Sam Okafor", "pass"), ("ep-3", "Dana Whitfield", "fail"),
                                     ("ep-3", "Sam Okafor", "fail")):  # fmt: skip
        desk.labels.put(
            ExpertLabel(subject=subject, reviewer=reviewer, label=label, reason="checked the ERA")
        )  # type: ignore[arg-type]
    desk.store.notify(Notification(draft_id=waiting, kind="reminder", round=1, sent_at=datetime.now(UTC)))
    page = await browser.new_page()
    await page.goto(f"{desk.url}/review/login")
    await page.fill("#token", "operator-token")
    await page.click("#sign-in")
    await page.wait_for_selector("#console-drafts")
    assert page.url.endswith("/review/console") and await page.inner_text("#who") == "Olu Adeyemi"
    stages = await page.inner_text("#stages")
    assert "awaiting_review\t1" in stages and "published\t1" in stages
    row = await page.inner_text(f"#console-drafts tr:has-text('{published}')")
    assert "Dana Whitfield" in row and "rcm-promoted v1" in row
    assert waiting in await page.inner_text("#console-drafts")
    # The reviewers, how far they agree (kappa (2/3 - 4/9) / (5/9) = 0.40 on 3 pairs), their labels.
    reviewers = await page.inner_text("#reviewers")
    assert "Dana Whitfield\t3" in reviewers and "Sam Okafor\t3" in reviewers
    assert "κ 0.40 over 3 pairs" in await page.inner_text("#between-reviewers")
    labels = await page.inner_text("#labels")
    assert "approved the resolution" in labels and labels.count("checked the ERA") == 5
    assert waiting in await page.inner_text("#notifications") and "reminder" in await page.inner_text(
        "#notifications"
    )
    assert "No document's real text has been read" in await page.inner_text("#reveals")
    # The archive's episodes are listed; this bridge reads no release registry, and says so.
    assert desk.episode[0].episodeid in await page.inner_text("#console-episodes")
    assert "No release registry is read here" in await page.inner_text("#adapters")
    assert await page.locator("#console-drafts a").count() == 0  # an operator does not open drafts to decide
    await page.goto(f"{desk.url}/review/drafts/{waiting}")
    assert page.url.endswith("/review/console")
    csrf = await page.input_value("input[name=csrf]")
    [cookie] = [c for c in await page.context.cookies() if c["name"] == COOKIE]
    async with httpx.AsyncClient(base_url=desk.url, cookies={COOKIE: cookie["value"]}, timeout=60) as http:
        refused = await http.post(
            f"/review/drafts/{waiting}/decide",
            data={
                "csrf": csrf,
                "decision": "reject",
                "judgement": "pass",
                "reason": "operators do not decide",
            },
        )
        assert refused.status_code == 403 and "only a reviewer" in refused.text
    assert desk.store.status(waiting).stage == "awaiting_review"  # type: ignore[union-attr]


async def test_a_payers_redenial_on_the_episode_shows_its_codes_in_words(
    desk: Desk, browser: Browser
) -> None:
    # The business system reports that the payer denied the claim again, after the episode.
    episode_id = desk.episode[0].episodeid
    archive = desk.archive
    next_seq, prevhash = archive.stream_tip(episode_id)
    chain = EpisodeChain(
        episode_id, tenant="acme", source="loopline://bridge/test", next_seq=next_seq, prevhash=prevhash
    )
    denied = OutcomeObserved(
        kind="denied", item_id=TASK.work_item.item_id, observed_at=datetime.now(UTC), reason_codes=("CO-50",)
    )
    archive.append([ArchiveRecord.of(chain.append(denied))])
    draft_id = await desk.promote("fc" * 16)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    row = await page.inner_text("#timeline tr.problem:has-text('outcome')")
    assert "denied; payer codes CO-50 (These are non-covered services" in row
    assert "kind: denied" not in await page.inner_text("#timeline")
    assert "payer codes CO-50" in await page.inner_text("#conclusion")


async def test_a_walk_through_every_page_as_a_specialist_sees_it(
    desk: Desk, browser: Browser, tmp_path: Path
) -> None:
    """Every page in turn, each checked; with LOOPLINE_REVIEW_SCREENSHOTS=docs/review each is saved
    there (the screenshots in docs/review are made so)."""
    folder = Path(os.environ.get("LOOPLINE_REVIEW_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page = await browser.new_page(viewport={"width": 1200, "height": 1000})

    async def shot(name: str, selector: str | None = None) -> None:
        if selector is not None:  # the section at the top of the window
            await page.locator(selector).first.evaluate("element => element.scrollIntoView()")
        await page.screenshot(path=folder / f"{name}.png")

    draft_id = await desk.promote("e5" * 16)
    await page.goto(f"{desk.url}/review/login")
    await shot("sign-in")
    await page.fill("#token", "reviewer-token")
    await page.click("#sign-in")
    await page.wait_for_selector("#drafts")
    await shot("queue")
    await page.click(f"text={draft_id}")
    assert "CO-50" in await page.inner_text("table[id^=remittance-lines-]")
    await shot("draft-case")
    await shot("draft-remittance", "h2:has-text('Remittance')")
    doc_id = next(
        d
        for d in TASK.initial_world["documents"]
        if TASK.initial_world["documents"][d]["kind"] == "abn_waiver"
    )
    await page.click(f"#reveal-{doc_id}")
    assert "the reveal is logged" in await page.inner_text("#message")
    await shot("document-revealed", f"#documents h3:has-text('{doc_id}')")
    await page.goto(f"{desk.url}/review/drafts/{draft_id}")
    assert "The gates hold" in await page.inner_text("#preview-verdict")
    await shot("gate-preview", "#gate-preview-heading")
    await edit_spec(page, lambda spec: spec.update(outcome={"must": []}))
    await page.click("#preview")
    assert "fails its own gate" in await page.inner_text("#preview-verdict")
    await shot("gate-preview-fails", "#gate-preview-heading")
    await page.uncheck("#use-json")
    await page.check("#decision-approve")
    await page.check("#reference-replace")
    await page.check("#pick-post_write_off")
    await page.fill("#post_write_off-amount", "39.00")
    await page.click("#decide")
    assert "reason" in await page.inner_text("#form-problems")
    await shot("decision-form-problems", "#decision-form")
    await page.check("#judgement-fail")
    await page.fill("#reason", "the ABN does not cover this service: write the $39.00 off")
    await page.select_option("#post_write_off-reason_code", "not_medically_necessary")
    await page.click("#preview")
    assert "The gates hold" in await page.inner_text("#preview-verdict")
    await shot("another-resolution", "#resolutions")
    await page.click("#decide")
    await page.wait_for_selector("#published")
    await page.goto(f"{desk.url}/review/console")
    assert draft_id in await page.inner_text("#console-drafts") and doc_id in await page.inner_text(
        "#reveals"
    )
    await page.screenshot(path=folder / "console.png", full_page=True)
    assert sorted(p.name for p in folder.glob("*.png")) >= sorted(
        f"{n}.png" for n in ("sign-in", "queue", "draft-case", "draft-remittance", "document-revealed",
                             "gate-preview", "gate-preview-fails", "decision-form-problems",
                             "another-resolution", "console")
    )  # fmt: skip


DEMO_DOMAINS = [name for name in ("rcm", "credit") if demo_drafts.load(name)]


@pytest.mark.parametrize("domain", DEMO_DOMAINS)
async def test_a_specialist_decides_every_draft_a_demo_run_made_with_the_form_alone(
    desk: Desk, browser: Browser, domain: str
) -> None:
    """Every draft one `loopline demo` run made (`tests/bridge/api/demo_drafts.py`), through its
    promotion workflow to the page: each opened from the queue, read, its gate preview shown before
    anything is sent, and decided with the form alone (no JSON), by a specialist who knows the
    case's true resolution (the demo's world, with its rule change made): a draft flagged as a
    duplicate of one already published is rejected as such; a suggestion that is the true
    resolution, and whose gates hold, is approved (the first with a tool marked "must not be
    used"); any other is rejected with the reason. What is published is the form's decision."""
    drafts = {d.draft.draft_id: d for d in demo_drafts.load(domain)}
    scenario = DOMAINS.get(domain).demo
    assert scenario is not None
    world = scenario.world()
    truth = scenario.rule_change.apply(world) if scenario.rule_change is not None else world
    for demo in drafts.values():
        desk.archive.append([ArchiveRecord.of(e) for e in demo.events])  # as the projector did
        desk.store.put_draft(demo.draft)  # the draft the run built from those events
        await start_promotion(
            desk.client, fingerprint=demo.draft.fingerprint, episode_id=demo.draft.source_episode_id,
            rule=demo.draft.rule, queue=desk.queue, timers=ReviewTimers(),
        )  # fmt: skip
    for _ in range(1200):
        stages = {s.draft_id: s.stage for s in desk.store.statuses() if s.draft_id in drafts}
        if len(stages) == len(drafts) and set(stages.values()) == {"awaiting_review"}:
            break
        await asyncio.sleep(0.1)
    assert set(stages.values()) == {"awaiting_review"} and set(stages) == set(drafts)
    page = await browser.new_page()
    await sign_in(page, desk.url)
    queue = [await a.inner_text() for a in await page.locator("#drafts a[href^='/review/drafts/']").all()]
    assert sorted(queue) == sorted(drafts)  # every draft of the run is in the queue
    flagged = {
        draft_id: await page.locator(f"#drafts tr:has(a[href$='/{draft_id}'])").inner_text()
        for draft_id in queue
    }
    decided: dict[str, str] = {}
    expected: dict[str, VerifierSpec] = {}
    forbade: str | None = None
    for draft_id in queue:
        demo = drafts[draft_id]
        await page.goto(f"{desk.url}/review")
        await page.click(f"text={draft_id}")
        assert demo.draft.work_item.item_id in await page.inner_text("#work-item")
        verdict = await page.inner_text("#preview-verdict")  # before anything is sent
        suggestion = desk.store.suggestion(draft_id)
        assert suggestion is not None
        right = true_resolution(truth, demo.draft)
        siblings = re.findall(r"draft-[0-9a-f]{20}", flagged[draft_id].split("possible duplicate of")[-1])
        published_twin = next((s for s in siblings if decided.get(s) == "published"), None)
        if published_twin is not None:
            assert published_twin in await page.inner_text("#duplicates")
            await page.check("#decision-reject")
            await page.fill("#reason", f"the same case as {published_twin}, already published")
        elif suggestion.resolution == right and "The gates hold" in verdict:
            await page.check("#decision-approve")
            await page.fill("#reason", f"{right} is what this case calls for")
            spec = desk.store.spec(suggestion.spec_hash)
            assert spec is not None
            if forbade is None:
                # The first approval also marks a write the resolution does not need as forbidden.
                gold = {c.name for c in suggestion.gold}
                boxes = page.locator("#forbidden-tools input[name=forbid]")
                forbade = next(
                    t
                    for t in [await b.get_attribute("value") or "" for b in await boxes.all()]
                    if t not in gold
                )
                await page.check(f"#forbid-{forbade}")
                marked = CallConstraint(tool=forbade, reason=FORBIDDEN_REASON)
                spec = spec.model_copy(update={"forbidden_calls": (*spec.forbidden_calls, marked)})
            expected[draft_id] = spec
        else:
            await page.check("#decision-reject")
            await page.fill("#reason", f"suggested {suggestion.resolution}; the case calls for {right}")
        if await page.locator("#judgement-fail").count():
            await page.check(
                "#judgement-fail" if demo.draft.rule == "outcome_contradiction" else "#judgement-pass"
            )
        await page.click("#decide")
        if await page.locator("#message:has-text('not sent yet')").count():
            # The form's choices changed the spec since its preview: it is shown, then sent.
            assert "The gates hold" in await page.inner_text("#preview-verdict")
            await page.click("#decide")
        await page.wait_for_selector("#message:has-text('decision recorded')")
        decided[draft_id] = await page.inner_text("#stage")
    assert set(decided) == set(drafts) and set(decided.values()) <= {"published", "rejected"}
    assert forbade is not None and any(v == "published" for v in decided.values())
    assert any("possible duplicate of" in row for row in flagged.values())  # flagged before review
    # What each approval published is the spec the form stated, with the tool it marked.
    for draft_id, spec in expected.items():
        status = desk.store.status(draft_id)
        assert status is not None and status.stage == "published" and status.task_set is not None
        [task] = [t for t in desk.registry.load(status.task_set).tasks if t.task_id == status.task_id]
        assert task.verifier == spec and task.provenance.reviewer == "Dana Whitfield"
    assert len(desk.published) == len(expected)
    # Each decision judged its source episode; a second reviewer labels the same episodes, and the
    # console shows how far the two agree (the figures the verifier card prints).
    judged = sorted({drafts[d].draft.source_episode_id for d in decided})
    async with httpx.AsyncClient(base_url=desk.url, timeout=60) as http:
        for i, episode_id in enumerate(judged):
            second = {"subject": episode_id, "label": "pass" if i % 2 else "fail", "reason": "a second look"}
            labelled = await http.post(
                "/v1/labels", json=second, headers={"Authorization": "Bearer other-reviewer-token"}
            )
            assert labelled.status_code == 201
    between = archived_agreement(str(desk.archive.engine.url), source="reviewer").between_reviewers
    assert between is not None and between.n == len(judged)
    await page.goto(f"{desk.url}/review/console")
    assert f"over {len(judged)} pairs" in await page.inner_text("#between-reviewers")
