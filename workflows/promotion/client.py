"""Talking to promotion workflows from outside: start one per edge case, send reviews, list them.

`TemporalReviewDesk` is the review API's port (`bridge.api.review.ReviewDesk`) over Temporal: the
spec and the reviewer's note go into the draft store first, and the `review` update carries only
their hashes. A gate preview runs the workflow's own gates (`candidate.preview`) in the desk's
process, since it decides nothing. The HTTP server runs its own event loop, so the desk runs the Temporal client on a
loop of its own, in a thread, and its methods block.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from adapters.drafting.store import PENDING, DraftStore, GatePreview, Gold, ReviewNote
from schemas.tasks import VerifierSpec
from workflows.promotion.candidate import preview
from workflows.promotion.models import PromoteInput, ReviewDecision, ReviewOutcome, ReviewTimers
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow, workflow_id_for

T = TypeVar("T")


async def connect(address: str, namespace: str = "default") -> Client:
    """A client with the pydantic data converter (every promotion model goes through it)."""
    return await Client.connect(address, namespace=namespace, data_converter=pydantic_data_converter)


async def start_promotion(
    client: Client, *, fingerprint: str, episode_id: str, rule: str, queue: str, timers: ReviewTimers
) -> bool:
    """Start the case's workflow; False when it runs or ran already (a refused one may run again)."""
    try:
        await client.start_workflow(
            PromoteEdgeCaseWorkflow.run,
            PromoteInput(fingerprint=fingerprint, episode_id=episode_id, rule=rule, timers=timers),
            id=workflow_id_for(fingerprint),
            task_queue=queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        )
    except WorkflowAlreadyStartedError:
        return False
    return True


class ReviewRefused(ValueError):
    """The workflow did not take the decision (not waiting for one, or no such draft)."""


async def send_review(client: Client, workflow_id: str, decision: ReviewDecision) -> ReviewOutcome:
    """Deliver a decision and wait until the workflow acted on it; `ReviewRefused` when the
    workflow is not waiting for one (checked first, and again by the update's validator)."""
    if decision.decision == "approve" and not decision.spec_hash:
        raise ReviewRefused("an approval needs the spec's hash")
    handle = client.get_workflow_handle_for(PromoteEdgeCaseWorkflow.run, workflow_id)
    try:
        state = await handle.query(PromoteEdgeCaseWorkflow.state)
        if state.stage not in PENDING:
            raise ReviewRefused(f"this draft is not waiting for a review (stage {state.stage})")
        return await handle.execute_update(PromoteEdgeCaseWorkflow.review, decision)
    except WorkflowUpdateFailedError as exc:
        cause = exc.cause
        raise ReviewRefused(str(getattr(cause, "message", cause) or exc)) from None
    except (RPCError, WorkflowQueryFailedError) as exc:
        raise ReviewRefused(f"the workflow refused the review: {exc}") from None


async def promotions(client: Client, limit: int = 200) -> list[dict[str, Any]]:
    """The promotion workflows the server knows, newest first: id, status, start and close times."""
    rows = []
    query = f"WorkflowType = '{PromoteEdgeCaseWorkflow.__name__}'"
    async for execution in client.list_workflows(query, limit=limit):
        rows.append(
            {
                "workflow_id": execution.id,
                "run_id": execution.run_id,
                "status": (execution.status or WorkflowExecutionStatus.RUNNING).name.lower(),
                "started": execution.start_time,
                "closed": execution.close_time,
            }
        )
    return rows


class TemporalReviewDesk:
    """Reviews over Temporal, for the (synchronous) review API."""

    def __init__(
        self, address: str, store: DraftStore, namespace: str = "default", connect_timeout_s: float = 15.0
    ) -> None:
        self.store = store
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="review-desk", daemon=True)
        self._thread.start()
        try:
            self._client: Client = self._run(connect(address, namespace), timeout=connect_timeout_s)
        except BaseException:
            self.close()  # nothing answered: leave no loop running behind
            raise

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float = 600) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout)

    def approve(
        self, draft_id: str, spec: VerifierSpec, reviewer: str, note: str = "", gold: Gold | None = None
    ) -> ReviewOutcome:
        """Approve with `spec` (as suggested or edited) and, where the reviewer's resolution replaces
        the reference's, their `gold`; returns once validated and published or returned."""
        decision = ReviewDecision(
            decision="approve",
            reviewer=reviewer,
            spec_hash=self.store.put_spec(spec),
            gold_hash=self.store.put_gold(gold) if gold is not None else None,
            note_id=self.store.put_note(ReviewNote(reviewer=reviewer, text=note)) if note else None,
        )
        return self._decide(draft_id, decision)

    def preview(self, draft_id: str, spec: VerifierSpec, gold: Gold | None = None) -> GatePreview:
        """The gates an approval of `spec` (and `gold`) would run (`candidate.preview`), here,
        deciding nothing."""
        draft, suggestion = self.store.draft(draft_id), self.store.suggestion(draft_id)
        if draft is None or suggestion is None:
            raise ReviewRefused(f"draft {draft_id!r} has no suggestion yet: nothing to preview")
        return preview(draft, spec, suggestion.gold, gold)

    def reject(self, draft_id: str, reviewer: str, reason: str) -> ReviewOutcome:
        """Reject, with the reviewer's reason."""
        note_id = self.store.put_note(ReviewNote(reviewer=reviewer, text=reason))
        return self._decide(draft_id, ReviewDecision(decision="reject", reviewer=reviewer, note_id=note_id))

    def _decide(self, draft_id: str, decision: ReviewDecision) -> ReviewOutcome:
        status = self.store.status(draft_id)
        if status is None:
            raise ReviewRefused(f"no draft {draft_id!r}")
        return self._run(send_review(self._client, status.workflow_id, decision))

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
