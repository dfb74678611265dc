"""Running the deployed policy on a work item, and asking how a run is going."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import JSONResponse

from bridge.api.deps import AGENT, READER, PathId, RunsDep, ServicesDep
from bridge.api.models import EpisodeRun, StartEpisode
from bridge.runtime import EpisodeResult
from schemas import new_id

router = APIRouter(tags=["episodes"])


def run_view(result: EpisodeResult) -> EpisodeRun:
    """What the API says about a finished run."""
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


@router.post("/v1/episodes", response_model=EpisodeRun, dependencies=[AGENT])
def start_episode(body: StartEpisode, services: ServicesDep, runs: RunsDep) -> Any:
    """Run the deployed policy on a work item; `wait=false` answers 202 at once."""
    episode_id = new_id()
    future = services.executor.submit(
        services.runner.run, body.work_item, episode_id=episode_id, payload_model=services.payload_model
    )
    runs.add(episode_id, future)
    if not body.wait:
        return JSONResponse(EpisodeRun(episode_id=episode_id, status="running").model_dump(), status_code=202)
    return run_view(future.result())


@router.get("/v1/runs/{episode_id}", response_model=EpisodeRun, dependencies=[READER])
def get_run(episode_id: PathId, runs: RunsDep) -> EpisodeRun:
    """An episode started through `POST /v1/episodes`, running or finished."""
    future = runs.get(episode_id)
    if future is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no run {episode_id!r} in this process")
    if not future.done():
        return EpisodeRun(episode_id=episode_id, status="running")
    return run_view(future.result())
