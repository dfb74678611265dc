"""Operations: the health probe (no token), and the operator-only views of capture and the PHI vault."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import JSONResponse

from bridge.api.deps import OPERATOR, PathId, ServicesDep
from bridge.api.models import RejectedEvent, Revealed
from bridge.api.responses import GUARDED, conflict, merge, not_found

ops = APIRouter(tags=["ops"])
router = APIRouter(tags=["operator"], dependencies=[OPERATOR], responses=GUARDED)


@ops.get("/healthz")
def healthz(request: Request, services: ServicesDep) -> dict[str, Any]:
    """`ok`, or `degraded` when the relay should run and does not (events then wait, safe, in
    the outbox); with capture's counters: pending, delivered, rejected, restarts, last error."""
    draining = bool(getattr(request.app.state, "draining", False))
    if services.capture_health is None:
        return {"status": "draining" if draining else "ok"}
    capture = services.capture_health()
    return {"status": "draining" if draining else capture["status"], "capture": capture}


@ops.get("/readyz", responses={503: {"description": "Not ready: draining, or capture degraded."}})
def readyz(services: ServicesDep) -> JSONResponse:
    """200 while the bridge should get traffic; 503 while it drains (the drain middleware answers)
    or capture is not `ok` (the relay cannot deliver, the backlog is old, the outbox is unreadable),
    so a load balancer sends work to a bridge whose events reach the broker. `/healthz` stays 200:
    an unready bridge is alive and keeps its outbox."""
    capture = {"status": "ok"} if services.capture_health is None else services.capture_health()
    ready = capture["status"] == "ok"
    return JSONResponse({"ready": ready, "capture": capture}, status_code=200 if ready else 503)


@router.get("/v1/capture/rejected", response_model=list[RejectedEvent])
def rejected_events(services: ServicesDep) -> list[RejectedEvent]:
    """Events this bridge recorded but the relay could never ship (too large for the broker,
    unreadable), oldest first: kept in the outbox, counted in `/healthz` (operators only)."""
    return services.rejected_events() if services.rejected_events is not None else []


@router.get(
    "/v1/phi/{token}",
    response_model=Revealed,
    responses=merge(
        not_found("PHI token"), conflict("The vault refuses to reveal the token (wrong key, tampered row).")
    ),
)
def reveal(token: PathId, services: ServicesDep) -> Revealed:
    """The raw value behind a PHI token (operators only; every reveal is audited by the vault)."""
    try:
        return Revealed(token=token, value=services.reveal_phi(token))
    except LookupError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown token {token!r}") from exc
    except RuntimeError as exc:  # the vault refuses: wrong key, tampered row, ambiguous token
        raise HTTPException(status.HTTP_409_CONFLICT, f"token {token!r} cannot be revealed: {exc}") from exc
