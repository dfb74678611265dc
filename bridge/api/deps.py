"""What the routes depend on: this process's services, open gateway sessions, runs and episode
owners (kept on `app.state` by `create_app`), and the caller, admitted by role.

The role matrix (docs/architecture.md, "Roles") lives here as one dependency per row kind; a
route names exactly the roles it admits.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from bridge.api.auth import Caller, Role, require
from bridge.api.owners import EpisodeOwners
from bridge.api.quota import CallerQuota
from bridge.api.runs import RunRegistry
from bridge.api.services import BridgeServices
from bridge.api.sessions import GatewaySessions
from schemas import WorkItem

PathId = str
AGENT = Depends(require(Role.AGENT))
"""Runs episodes and drives gateway episodes."""
INTEGRATION = Depends(require(Role.INTEGRATION))
"""The business system: reports later outcomes."""
EPISODE_READER = Depends(require(Role.AGENT, Role.REVIEWER, Role.OPERATOR))
"""Reads one episode: agents only their own (`visible_to`), reviewers and operators any."""
READER = Depends(require(Role.REVIEWER, Role.OPERATOR))
"""Reads across episodes: lists, edge cases, error rates."""
OPERATOR = Depends(require(Role.OPERATOR))
"""Operations: capture's rejected events, PHI reveal."""


def get_services(request: Request) -> BridgeServices:
    """The runtime, capture and read side this app serves."""
    services: BridgeServices = request.app.state.services
    return services


def get_sessions(request: Request) -> GatewaySessions:
    """The gateway episodes open in this process."""
    sessions: GatewaySessions = request.app.state.sessions
    return sessions


def get_runs(request: Request) -> RunRegistry:
    """The episodes this process started through `POST /v1/episodes`."""
    runs: RunRegistry = request.app.state.runs
    return runs


def get_owners(request: Request) -> EpisodeOwners:
    """Which caller started each episode."""
    owners: EpisodeOwners = request.app.state.owners
    return owners


def get_quota(request: Request) -> CallerQuota:
    """Each caller's running and queued episodes."""
    quota: CallerQuota = request.app.state.quota
    return quota


ServicesDep = Annotated[BridgeServices, Depends(get_services)]
QuotaDep = Annotated[CallerQuota, Depends(get_quota)]
SessionsDep = Annotated[GatewaySessions, Depends(get_sessions)]
RunsDep = Annotated[RunRegistry, Depends(get_runs)]
OwnersDep = Annotated[EpisodeOwners, Depends(get_owners)]
AgentCaller = Annotated[Caller, AGENT]
EpisodeReaderCaller = Annotated[Caller, EPISODE_READER]


def visible_to(caller: Caller, owners: EpisodeOwners, episode_id: str) -> bool:
    """Whether `caller` may read `episode_id`: an agent only the episodes it started."""
    return caller.role is not Role.AGENT or owners.owns(caller.id, episode_id)


def refuse_unworkable(services: BridgeServices, item: WorkItem) -> None:
    """422 naming the field when the domain cannot work `item` (before any episode starts)."""
    problem = services.work_item_problem(item) if services.work_item_problem is not None else None
    if problem is not None:
        raise HTTPException(422, f"work_item: {problem}")
