"""Running the deployed policy on a work item, and asking how a run is going."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import JSONResponse

from bridge.api.deps import (
    AgentCaller,
    EpisodeReaderCaller,
    OwnersDep,
    PathId,
    QuotaDep,
    RunsDep,
    ServicesDep,
    refuse_unworkable,
    visible_to,
)
from bridge.api.models import EpisodeRun, StartEpisode
from bridge.api.responses import GUARDED, WITH_BODY, also, merge, not_found, refused
from bridge.api.services import BridgeServices
from bridge.api.traces import TraceparentHeader
from engine import EpisodeResult
from schemas import new_id

router = APIRouter(tags=["episodes"], responses=GUARDED)
STARTED = also(202, EpisodeRun, "`wait=false`: the run started; poll `GET /v1/runs/{id}`.")


def finished_view(episode_id: str, future: Future[EpisodeResult], services: BridgeServices) -> EpisodeRun:
    """What the API says about a finished run. A run the runtime itself failed (its record is
    closed as failed by the runner) reads as `failed` with the error; a run stopped because events
    could not be recorded raises that error again, which the app answers with 503."""
    error = future.exception()
    if error is None:
        return run_view(future.result())
    if isinstance(error, services.unavailable):
        raise error
    return EpisodeRun(episode_id=episode_id, status="failed", error=f"{type(error).__name__}: {error}")


def run_view(result: EpisodeResult) -> EpisodeRun:
    """What the API says about a run that ended normally."""
    return EpisodeRun(
        episode_id=result.episode_id,
        status=result.status,
        steps=result.steps,
        tool_calls=result.tool_calls,
        escalated=result.escalation is not None,
        escalation_reason=result.escalation.reason if result.escalation else None,
        final_message=result.final_message,
        error=result.error,
    )


BUSY = refused(429, "The caller has its cap of episodes running or queued; retry when one ends.")


@router.post("/v1/episodes", response_model=EpisodeRun, responses=merge(STARTED, WITH_BODY, BUSY))
def start_episode(
    body: StartEpisode,
    caller: AgentCaller,
    services: ServicesDep,
    runs: RunsDep,
    owners: OwnersDep,
    quota: QuotaDep,
    traceparent: TraceparentHeader = None,
) -> Any:
    """Run the deployed policy on a work item; `wait=false` answers 202 at once. A work item the
    domain cannot work is refused with 422 naming the field; a caller with its cap of episodes
    running or queued is refused with 429."""
    refuse_unworkable(services, body.work_item)
    if not quota.acquire(caller.id):
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, quota.refusal(), headers={"Retry-After": "1"})
    episode_id = new_id()
    try:
        owners.add(episode_id, caller.id)
        services.traces.expect(episode_id, traceparent)
        future = services.executor.submit(
            services.runner.run, body.work_item, episode_id=episode_id, payload_model=services.payload_model
        )
    except BaseException:
        quota.release(caller.id)
        raise
    future.add_done_callback(lambda _done: quota.release(caller.id))
    runs.add(episode_id, future)
    if not body.wait:
        return JSONResponse(EpisodeRun(episode_id=episode_id, status="running").model_dump(), status_code=202)
    future.exception()  # waits for the end, whatever it is
    return finished_view(episode_id, future, services)


@router.get("/v1/runs/{episode_id}", response_model=EpisodeRun, responses=not_found("run in this process"))
def get_run(
    episode_id: PathId, caller: EpisodeReaderCaller, runs: RunsDep, services: ServicesDep, owners: OwnersDep
) -> EpisodeRun:
    """An episode started through `POST /v1/episodes`, running or finished (an agent sees only
    the runs it started)."""
    future = runs.get(episode_id)
    if future is None or not visible_to(caller, owners, episode_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no run {episode_id!r} in this process")
    if not future.done():
        return EpisodeRun(episode_id=episode_id, status="running")
    return finished_view(episode_id, future, services)
