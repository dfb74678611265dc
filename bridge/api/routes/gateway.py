"""The tool gateway: an external agent opens an episode and sends its tool calls through the bridge,
which validates, runs and records each one."""

from __future__ import annotations

from fastapi import APIRouter

from bridge.api.deps import AgentCaller, OwnersDep, PathId, ServicesDep, SessionsDep, refuse_unworkable
from bridge.api.models import (
    CloseGatewayEpisode,
    GatewayEpisode,
    GatewayEscalation,
    GatewayToolCall,
    OpenGatewayEpisode,
    Recorded,
)
from bridge.api.responses import GUARDED, WITH_BODY, merge, not_found, refused
from bridge.api.traces import TraceparentHeader
from schemas import ToolResult, new_id

router = APIRouter(prefix="/v1/gateway/episodes", tags=["gateway"], responses=merge(GUARDED, WITH_BODY))
OPEN_EPISODE = not_found("open gateway episode of this caller")
TOO_MANY = refused(429, "The caller (or the bridge) has as many gateway episodes open as it may.")


@router.post("", response_model=GatewayEpisode, responses=TOO_MANY)
def open_gateway_episode(
    body: OpenGatewayEpisode,
    caller: AgentCaller,
    services: ServicesDep,
    sessions: SessionsDep,
    owners: OwnersDep,
    traceparent: TraceparentHeader = None,
) -> GatewayEpisode:
    """Open an episode whose tool calls an external agent sends through the bridge (422 naming
    the field for a work item the domain cannot work)."""
    refuse_unworkable(services, body.work_item)
    episode_id = new_id()
    services.traces.expect(episode_id, traceparent)
    sessions.open(
        episode_id,
        services.recorders(episode_id),
        body.work_item,
        model=body.model,
        max_steps=body.max_steps,
        owner=caller.id,
        payload_model=services.payload_model,
    )
    owners.add(episode_id, caller.id)
    return GatewayEpisode(episode_id=episode_id, tools=services.toolbox.openai_tools())


@router.post("/{episode_id}/calls", response_model=ToolResult, responses=OPEN_EPISODE)
def gateway_call(
    episode_id: PathId, body: GatewayToolCall, caller: AgentCaller, sessions: SessionsDep
) -> ToolResult:
    """Execute one tool call (validated, captured); failures come back as a failed result."""
    return sessions.call(episode_id, caller.id, body.name, body.arguments, body.call_id)


@router.post("/{episode_id}/escalate", response_model=Recorded, responses=OPEN_EPISODE)
def gateway_escalate(
    episode_id: PathId, body: GatewayEscalation, caller: AgentCaller, sessions: SessionsDep
) -> Recorded:
    """Hand the episode to a human."""
    event = sessions.escalate(
        episode_id, caller.id, body.reason, recommendation=body.recommendation, queue=body.queue
    )
    return Recorded(event_id=event.id, seq=event.seq)


@router.post("/{episode_id}/close", response_model=Recorded, responses=OPEN_EPISODE)
def gateway_close(
    episode_id: PathId, body: CloseGatewayEpisode, caller: AgentCaller, sessions: SessionsDep
) -> Recorded:
    """End the episode."""
    event = sessions.close(episode_id, caller.id, body.status, final_message=body.final_message)
    return Recorded(event_id=event.id, seq=event.seq)
