"""Read endpoints over the archive and its projections: episodes, their events, edge cases, error rates."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query, status

from bridge.api.deps import READER, EpisodeReaderCaller, OwnersDep, PathId, ServicesDep, visible_to
from bridge.api.responses import GUARDED, not_found
from bridge.store.views import EdgeCaseView, EpisodeDetail, EpisodeSummary, StoredEvent, ToolErrorRate

router = APIRouter(tags=["read"], responses=GUARDED)
"""Agents read single episodes they started; lists, edge cases and error rates are for reviewers
and operators."""


@router.get("/v1/episodes", response_model=list[EpisodeSummary], dependencies=[READER])
def list_episodes(
    services: ServicesDep,
    status_: str | None = Query(None, alias="status", max_length=32),
    work_item_id: str | None = Query(None, max_length=128),
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=10_000_000),
) -> list[EpisodeSummary]:
    return services.reader.list_episodes(
        status=status_, work_item_id=work_item_id, limit=limit, offset=offset
    )


@router.get("/v1/episodes/{episode_id}", response_model=EpisodeDetail, responses=not_found("episode"))
def get_episode(
    episode_id: PathId, caller: EpisodeReaderCaller, services: ServicesDep, owners: OwnersDep
) -> EpisodeDetail:
    detail = services.reader.get_episode(episode_id) if visible_to(caller, owners, episode_id) else None
    if detail is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown episode {episode_id!r}")
    return detail


@router.get(
    "/v1/episodes/{episode_id}/events", response_model=list[StoredEvent], responses=not_found("episode")
)
def episode_events(
    episode_id: PathId, caller: EpisodeReaderCaller, services: ServicesDep, owners: OwnersDep
) -> list[StoredEvent]:
    events = services.reader.episode_events(episode_id) if visible_to(caller, owners, episode_id) else []
    if not events:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no events for episode {episode_id!r}")
    return events


@router.get("/v1/edge-cases", response_model=list[EdgeCaseView], dependencies=[READER])
def list_edge_cases(
    services: ServicesDep,
    rule: str | None = Query(None, max_length=128),
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=10_000_000),
) -> list[EdgeCaseView]:
    return services.reader.list_edge_cases(rule=rule, limit=limit, offset=offset)


@router.get(
    "/v1/edge-cases/{fingerprint}",
    response_model=EdgeCaseView,
    dependencies=[READER],
    responses=not_found("edge case"),
)
def get_edge_case(fingerprint: PathId, services: ServicesDep) -> EdgeCaseView:
    case = services.reader.get_edge_case(fingerprint)
    if case is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown edge case {fingerprint!r}")
    return case


@router.get("/v1/tool-error-rates", response_model=list[ToolErrorRate], dependencies=[READER])
def tool_error_rates(services: ServicesDep) -> list[ToolErrorRate]:
    return services.reader.tool_error_rates()
