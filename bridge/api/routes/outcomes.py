"""The outcome webhook: a later business fact (the claim was paid) joined to its episode."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from bridge.api.deps import INTEGRATION, ServicesDep
from bridge.api.models import ObservedOutcome, Recorded
from bridge.api.responses import GUARDED, WITH_BODY, merge, not_found
from schemas.events import OutcomeObserved

router = APIRouter(tags=["outcomes"], responses=GUARDED)


@router.post(
    "/v1/outcomes",
    response_model=Recorded,
    status_code=202,
    dependencies=[INTEGRATION],
    responses=merge(WITH_BODY, not_found("episode")),
)
def observe_outcome(body: ObservedOutcome, services: ServicesDep) -> Recorded:
    """Webhook for a later business outcome; joined to the episode as `outcome.observed` (the
    integration role only: an agent may not write its own training signal)."""
    if body.observed_at.tzinfo is None:
        raise HTTPException(422, "observed_at must carry a timezone")
    outcome = OutcomeObserved(
        kind=body.kind,
        item_id=body.item_id,
        observed_at=body.observed_at,
        amount=body.amount,
        reason_codes=tuple(body.reason_codes),
        external_ref=body.external_ref,
    )
    try:
        event = services.record_outcome(body.episode_id, outcome)
    except LookupError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown episode {body.episode_id!r}") from exc
    return Recorded(event_id=event.id, seq=event.seq)
