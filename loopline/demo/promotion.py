"""The demo's promotion stage: the run's edge cases become task drafts, reviewed and published.

A worker and the edge-case starter run in a thread beside the demo (as `loopline workflows worker
--with-starter` would) against the stack's Temporal; each new edge case gets its promotion
workflow; each draft that reaches review is decided by a **simulated reviewer**, clearly labelled
in every line it prints and in the name it signs with, who knows the sandbox's ground truth: the
world the sandbox started from. It has the domain's reference agent work the item in that true
world (`suggested_spec` of the domain's promotion) and approves the suggested spec when the draft's
suggestion reaches the same resolution, and rejects it otherwise. With `--review` nobody is simulated: the stage serves the review page and
waits for a person to decide every draft.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import PENDING, DraftStore, PromotionStatus
from envs.domain import promotion
from workflows.promotion.candidate import suggested_spec
from workflows.promotion.client import TemporalReviewDesk
from workflows.settings import WorkflowsSettings
from workflows.worker import serve

SIMULATED = "simulated-reviewer"
LABEL = "[magenta]\\[simulated reviewer][/]"
SETTLED = frozenset({"published", "rejected", "refused", "duplicate"})
"""Stages a promotion ends in."""
Truth = Any
"""The world the demo's sandbox started from (the domain's world model)."""


@dataclass
class PromotionSummary:
    """What the stage did."""

    drafts: int = 0
    published: list[str] = field(default_factory=list)
    rejected: int = 0
    refused: int = 0
    duplicates: int = 0
    task_set_version: int | None = None
    task_set: str | None = None
    statuses: list[PromotionStatus] = field(default_factory=list)
    """Every draft's status at the end of the stage."""


def true_resolution(truth: Truth, draft: TaskDraft) -> str:
    """The resolution the reference agent reaches on the item in the sandbox's true world (the work
    item rebuilt there as the domain's promotion rebuilds it: an rcm draft's names the patient by
    surrogates)."""
    item = promotion(draft.domain).rebuild.work_item(truth.snapshot(), draft.work_item)
    honest = draft.model_copy(update={"world": truth.snapshot(), "work_item": item, "faults": ()})
    spec, _ = suggested_spec(honest)
    return str(spec.params.get("resolution", ""))


def simulated_review(
    console: Console, desk: TemporalReviewDesk, store: DraftStore, truth: Truth, draft_id: str
) -> str:
    """Decide one draft as the simulated reviewer; the stage it led to."""
    draft, suggestion = store.draft(draft_id), store.suggestion(draft_id)
    if draft is None or suggestion is None:
        return "missing"
    expected = true_resolution(truth, draft)
    claim = draft.work_item.item_id
    if suggestion.resolution == expected:
        spec = store.spec(suggestion.spec_hash)
        assert spec is not None
        outcome = desk.approve(
            draft_id, spec, SIMULATED, note=f"simulated: ground truth resolution {expected}"
        )
        console.print(f"{LABEL} approved {claim} ({expected}) → {outcome.stage}")
        if outcome.stage == "returned":  # a gate refused it: the simulated reviewer does not argue
            desk.reject(draft_id, SIMULATED, "simulated: the gates refused the spec")
            console.print(f"{LABEL} rejected {claim} after its gates failed (report {outcome.report_id})")
        return outcome.stage
    desk.reject(draft_id, SIMULATED, f"simulated: the suggestion {suggestion.resolution} is not {expected}")
    console.print(f"{LABEL} rejected {claim}: suggested {suggestion.resolution}, ground truth {expected}")
    return "rejected"


REVIEWER_TOKEN = "dev-reviewer-token"
REVIEWER_NAME = "demo reviewer"
"""Whom the demo's reviewer token signs in as: the reviewer on its decisions and labels."""
OPERATOR_TOKEN = "dev-operator-token"
OPERATOR_NAME = "demo operator"
"""Whom the demo's operator token signs in as (the console only)."""


def serve_review_page(
    store: DraftStore, desk: TemporalReviewDesk | None, db_url: str, release_db_url: str | None = None
) -> AbstractContextManager[str]:
    """The review page, its API and the console alone, for `--review` (the demo's reviewer and
    operator tokens); `desk` None serves them read-only, `release_db_url` lists its adapters."""
    from adapters.serving import serve_in_thread
    from bridge.api.app import review_app
    from bridge.api.auth import Identity, Role, TokenTable
    from bridge.api.labels import Labelling
    from bridge.api.review import Reviewing
    from bridge.api.review_sessions import ReviewSessions
    from bridge.store import SqlEpisodeReader, SqlEventArchive
    from bridge.store.review_sessions import SqlSessionStore
    from loopline.bridge.review_adapters import release_adapters
    from loopline.bridge.review_agreement import review_agreements
    from loopline.bridge.review_domains import review_domains

    engine = SqlEventArchive(db_url).engine
    tokens = TokenTable.from_tokens(
        {
            REVIEWER_TOKEN: Identity(Role.REVIEWER, REVIEWER_NAME),
            OPERATOR_TOKEN: Identity(Role.OPERATOR, OPERATOR_NAME),
        }
    )
    sessions = SqlSessionStore(engine)
    sessions.create_schema()
    reviewing = Reviewing(
        store,
        desk,
        ReviewSessions(store=sessions),
        review_domains(),
        agreements=review_agreements(db_url),
        adapters=release_adapters(release_db_url) if release_db_url is not None else None,
    )
    app = review_app(reviewing, SqlEpisodeReader(engine), tokens, Labelling.open(engine))
    return serve_in_thread(app, name="review-page")


def run_worker_thread(
    settings: WorkflowsSettings, publish: Callable[[dict[str, Any]], None] | None
) -> Callable[[], None]:
    """The worker and starter in a thread with their own loop; returns a function that stops them."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    started = threading.Event()

    def main() -> None:
        asyncio.set_event_loop(loop)
        started.set()
        loop.run_until_complete(serve(settings, publish=publish, with_starter=True, stop=stop))

    thread = threading.Thread(target=main, name="promotion-worker", daemon=True)
    thread.start()
    started.wait(10)

    def halt() -> None:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)

    return halt


def promotion_stage(
    console: Console,
    *,
    temporal_address: str,
    db_url: str,
    workdir: Path,
    truth: Truth,
    domain: str,
    publish: Callable[[dict[str, Any]], None] | None = None,
    review: bool = False,
    timeout_s: float = 180.0,
) -> PromotionSummary:
    """Promote the archive's edge cases; simulated or human review (see the module)."""
    settings = WorkflowsSettings(
        temporal_address=temporal_address,
        db_url=db_url,
        drafts_dir=workdir / "drafts",
        tasksets_root=workdir / "tasksets",
        task_queue=f"demo-{workdir.name}-{int(time.time())}",
    )
    store = DraftStore(settings.drafts_dir)
    halt = run_worker_thread(settings, publish)
    desk = TemporalReviewDesk(temporal_address, store)
    summary = PromotionSummary()
    decided: set[str] = set()
    page = serve_review_page(store, desk, db_url) if review else None
    try:
        deadline = time.monotonic() + (24 * 3600 if review else timeout_s)
        quiet_since = time.monotonic()
        if page is not None:
            url = page.__enter__()
            console.print(
                f"review the drafts at {url}/review (sign in with {REVIEWER_TOKEN}); "
                "waiting until every draft is decided"
            )
        with console.status("promotion: drafts, suggestions, reviews…") as status:
            while time.monotonic() < deadline:
                statuses = store.statuses()
                for row in statuses:
                    if row.stage in PENDING and row.draft_id not in decided and not review:
                        decided.add(row.draft_id)
                        draft = store.draft(row.draft_id)
                        if draft is not None and draft.domain == domain:
                            simulated_review(console, desk, store, truth, row.draft_id)
                waiting = [s for s in statuses if s.stage not in SETTLED]
                status.update(f"promotion: {len(statuses)} drafts, {len(waiting)} not settled")
                if waiting:
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since > (3.0 if statuses else 20.0):
                    break  # every draft settled (or no edge case at all), and nothing new for a while
                time.sleep(0.3)
    finally:
        if page is not None:
            page.__exit__(None, None, None)
        desk.close()
        halt()
    return summarise(summary, store, domain)


def summarise(summary: PromotionSummary, store: DraftStore, domain: str) -> PromotionSummary:
    """`summary` filled from the store's drafts of `domain`: the promotion folder is kept across
    runs (`KEPT_ACROSS_RUNS`), so after `make demo` a `make demo DOMAIN=credit` finds rcm's drafts
    there too, and they are not this run's."""
    for row in store.statuses():
        draft = store.draft(row.draft_id)
        if draft is None or draft.domain != domain:
            continue
        summary.statuses.append(row)
        summary.drafts += 1
        if row.stage == "published" and row.task_id:
            summary.published.append(row.task_id)
            summary.task_set_version = max(summary.task_set_version or 0, row.task_set_version or 0)
            summary.task_set = row.task_set
        summary.rejected += row.stage == "rejected"
        summary.refused += row.stage == "refused"
        summary.duplicates += row.stage == "duplicate"
    return summary
