"""What the routes depend on: this process's services, open gateway sessions and runs (kept on
`app.state` by `create_app`), and the caller's role."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from bridge.api.auth import Role, require
from bridge.api.runs import RunRegistry
from bridge.api.services import BridgeServices
from bridge.api.sessions import GatewaySessions
from schemas import WorkItem

PathId = str
AGENT = Depends(require(Role.AGENT))
READER = Depends(require(Role.REVIEWER, Role.AGENT))
OPERATOR = Depends(require(Role.OPERATOR))


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


ServicesDep = Annotated[BridgeServices, Depends(get_services)]
SessionsDep = Annotated[GatewaySessions, Depends(get_sessions)]
RunsDep = Annotated[RunRegistry, Depends(get_runs)]


def refuse_unworkable(services: BridgeServices, item: WorkItem) -> None:
    """422 naming the field when the domain cannot work `item` (before any episode starts)."""
    problem = services.work_item_problem(item) if services.work_item_problem is not None else None
    if problem is not None:
        raise HTTPException(422, f"work_item: {problem}")
