"""Expert labelling over HTTP: a queue of scored episodes, one episode to judge, labels in and out.

Reviewers only. A label's reviewer is the caller's identity (the person its token is configured
for, `Caller.identity`), never a body field: one token is one reviewer, so it cannot add labels
under other names and move the agreement figures. Relabelling an episode replaces the caller's own
earlier label of it. An episode is shown blind by default (no verdicts, no `verifier.scored` events, no other
labels): an expert who sees the verdict tends to agree with it, which would inflate the very
agreement the labels measure. `blind=false` shows them; the label then records which verifier the
reviewer saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, HTTPException, Query, Response, status
from pydantic import Field, ValidationError

from bridge.api.auth import Caller, Role, require
from bridge.api.models import Body, Id
from bridge.api.responses import GUARDED, WITH_BODY, also, merge, not_found
from bridge.store import Engine
from bridge.store.labels import ExpertLabel, LabelSource, LabelValue, SqlLabelStore
from bridge.store.reader import EpisodeStore
from bridge.store.verdicts import ArchivedVerdict, LabelCandidate, QueueOrder, SqlVerdictReader
from bridge.store.views import EpisodeDetail, StoredEvent
from schemas.base import PRINTABLE

SCORED_PREFIX = "loopline.verifier.scored."


@dataclass(frozen=True)
class Labelling:
    """What the label routes need: the label store and the verdicts archived beside it."""

    labels: SqlLabelStore
    verdicts: SqlVerdictReader

    @classmethod
    def open(cls, engine: Engine) -> Labelling:
        """Both, over the archive's engine, with the label table created if missing."""
        labels = SqlLabelStore(engine)
        labels.create_schema()
        return cls(labels, SqlVerdictReader(engine))


class NewLabel(Body):
    """A reviewer's judgement of one archived episode."""

    subject: str = Id
    """The episode judged."""
    label: LabelValue
    """`pass` when the episode did the work right, `fail` otherwise."""
    reason: str = Field(min_length=1, max_length=4000)
    """Why, in words another billing specialist can check."""
    verifier: str | None = Field(default=None, min_length=1, max_length=128)
    """The verifier whose verdict the reviewer saw (`blind=false`); omit for a blind label."""


class LabelCase(Body):
    """One episode as a reviewer judges it."""

    episode: EpisodeDetail
    """The episode with its tool calls and observed outcomes."""
    events: list[StoredEvent]
    """Its timeline, every archived event in `seq` order (without verdicts when blind)."""
    blind: bool
    """Whether verdicts and other labels are hidden."""
    verdicts: list[ArchivedVerdict]
    """Each verifier's latest verdict (empty when blind)."""
    labels: list[ExpertLabel]
    """Labels given so far (empty when blind)."""


REVIEWER = require(Role.REVIEWER)
REPLACED = also(200, ExpertLabel, "The reviewer's earlier label of the episode, replaced.")


def label_router(labelling: Labelling | None, reader: EpisodeStore) -> APIRouter:
    """The `/v1/labels` routes; without `labelling` they answer 503."""
    router = APIRouter(
        prefix="/v1/labels",
        tags=["labels"],
        dependencies=[Depends(REVIEWER)],
        responses=GUARDED,
    )

    def desk() -> Labelling:
        if labelling is None:
            raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "no label store is configured here")
        return labelling

    def episode(episode_id: str) -> EpisodeDetail:
        detail = reader.get_episode(episode_id)
        if detail is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown episode {episode_id!r}")
        return detail

    @router.get("/queue", response_model=list[LabelCandidate])
    def queue(
        reviewer: str | None = Query(None, min_length=1, max_length=128, pattern=PRINTABLE),
        order: QueueOrder = "oldest",
        seed: int = Query(0, ge=0, le=2**63 - 1),
        limit: int = Query(20, ge=1, le=1000),
    ) -> list[LabelCandidate]:
        """Scored episodes not yet labelled (by `reviewer`, or by anyone): oldest first, or a
        sample drawn with `seed` (`order=random`)."""
        return desk().verdicts.label_queue(reviewer=reviewer, order=order, seed=seed, limit=limit)

    @router.get("/episodes/{episode_id}", response_model=LabelCase, responses=not_found("episode"))
    def show(episode_id: str, blind: bool = True) -> LabelCase:
        """An episode to judge: its detail and timeline; verdicts and labels unless `blind`."""
        labels = desk()
        detail = episode(episode_id)
        events = reader.episode_events(episode_id)
        if blind:
            return LabelCase(
                episode=detail,
                events=[e for e in events if not e.type.startswith(SCORED_PREFIX)],
                blind=True,
                verdicts=[],
                labels=[],
            )
        return LabelCase(
            episode=detail,
            events=events,
            blind=False,
            verdicts=labels.verdicts.verdicts([episode_id]).get(episode_id, []),
            labels=labels.labels.list_labels(subject=episode_id),
        )

    @router.post(
        "",
        response_model=ExpertLabel,
        status_code=201,
        responses=merge(REPLACED, WITH_BODY, not_found("episode")),
    )
    def post(body: NewLabel, response: Response, caller: Caller = Depends(REVIEWER)) -> ExpertLabel:
        """Label an archived episode as the caller: 201, or 200 when it replaced the caller's
        earlier label of it."""
        labels = desk()
        detail = episode(body.subject)
        task_id = detail.episode.task_id or next(
            (v.task_id for v in labels.verdicts.verdicts([body.subject]).get(body.subject, []) if v.task_id),
            None,
        )
        try:
            label = ExpertLabel(
                **body.model_dump(),
                reviewer=caller.identity,
                task_id=task_id,
                source="reviewer",
                labelled_at=datetime.now(UTC),
            )
        except ValidationError as exc:
            raise HTTPException(422, "; ".join(e["msg"] for e in exc.errors())) from None
        if labels.labels.put(label):
            response.status_code = status.HTTP_200_OK
        return label

    @router.get("", response_model=list[ExpertLabel])
    def list_labels(
        subject: str | None = Query(None, max_length=128),
        reviewer: str | None = Query(None, max_length=128),
        verifier: str | None = Query(None, max_length=128),
        source: LabelSource | None = None,
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=10_000_000),
    ) -> list[ExpertLabel]:
        """Labels, oldest first, filtered by subject, reviewer, verifier seen, or source."""
        return desk().labels.list_labels(
            subject=subject, reviewer=reviewer, verifier=verifier, source=source, limit=limit, offset=offset
        )

    return router
