"""Verifier verdicts as archived (`verifier.scored` events), for expert labelling and outcome checks.

Verdicts are not projected: they are read from the archive, decoded (old versions upcast), and the
latest verdict of each verifier on an episode (highest `seq`) stands for that verifier. The label
queue pairs them with the label table; outcome correlation with the outcome projection.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bridge.store.engine import StoreConfig, make_engine
from bridge.store.labels import LABELS
from bridge.store.tables import ARCHIVE_TABLE, OUTCOMES
from bridge.store.views import View
from schemas.codec import EventDecodeError, from_structured
from schemas.events import VerifierScored

A = ARCHIVE_TABLE
SCORED = A.c.type.like("loopline.verifier.scored.%")
CHUNK = 500
QueueOrder = Literal["oldest", "random"]


class ArchivedVerdict(View):
    """One verifier's latest verdict on an archived episode."""

    episode_id: str
    verifier: str
    score: float
    passed: bool
    task_id: str | None
    seq: int
    scored_at: datetime


class LabelCandidate(View):
    """An archived, scored episode waiting for a label (which verifiers scored it, not how)."""

    episode_id: str
    task_id: str | None
    scored_at: datetime
    verifiers: list[str]


class ScoredOutcome(View):
    """An episode's verdicts and the kinds of the business outcomes observed for it, in stream order."""

    episode_id: str
    verdicts: list[ArchivedVerdict]
    outcome_kinds: list[str]


class SqlVerdictReader:
    """Reads `verifier.scored` events from the archive (SQLite or Postgres)."""

    def __init__(self, engine: Engine | StoreConfig | str) -> None:
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)

    def verdicts(self, episode_ids: Iterable[str]) -> dict[str, list[ArchivedVerdict]]:
        """Each episode's latest verdict per verifier, by verifier name; episodes never scored are absent."""
        latest: dict[tuple[str, str], ArchivedVerdict] = {}
        for verdict in self._scored(list(dict.fromkeys(episode_ids))):
            key = (verdict.episode_id, verdict.verifier)
            if key not in latest or latest[key].seq < verdict.seq:
                latest[key] = verdict
        found: dict[str, list[ArchivedVerdict]] = {}
        for (episode_id, _), verdict in sorted(latest.items()):
            found.setdefault(episode_id, []).append(verdict)
        return found

    def label_queue(
        self, *, reviewer: str | None = None, order: QueueOrder = "oldest", seed: int = 0, limit: int = 20
    ) -> list[LabelCandidate]:
        """Scored episodes without a label (by `reviewer`, or by anyone when None).

        `oldest`: first scored first. `random`: a sample drawn with `seed`, the same for the same
        archive and labels, so two reviewers given one seed see one sample.
        """
        if limit < 1:
            raise ValueError("limit must be >= 1")
        labelled = sa.select(LABELS.c.subject)
        if reviewer is not None:
            labelled = labelled.where(LABELS.c.reviewer == reviewer)
        first = sa.func.min(A.c.time).label("scored_at")
        query = (
            sa.select(A.c.episodeid, first)
            .where(SCORED, A.c.episodeid.not_in(labelled))
            .group_by(A.c.episodeid)
        )
        with self.engine.connect() as conn:
            if order == "oldest":
                rows = conn.execute(query.order_by(first, A.c.episodeid).limit(limit)).all()
            else:
                every = conn.execute(query.order_by(A.c.episodeid)).all()
                rows = random.Random(seed).sample(every, min(limit, len(every)))
        verdicts = self.verdicts(row.episodeid for row in rows)
        return [_candidate(row.episodeid, row.scored_at, verdicts.get(row.episodeid, [])) for row in rows]

    def scored_with_outcomes(self) -> list[ScoredOutcome]:
        """Episodes with at least one verdict and one observed outcome, by episode id."""
        scored = sa.select(A.c.episodeid).where(SCORED)
        query = (
            sa.select(OUTCOMES.c.episode_id, OUTCOMES.c.kind)
            .where(OUTCOMES.c.episode_id.in_(scored))
            .order_by(OUTCOMES.c.episode_id, OUTCOMES.c.seq)
        )
        kinds: dict[str, list[str]] = {}
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                kinds.setdefault(row.episode_id, []).append(row.kind)
        verdicts = self.verdicts(kinds)
        return [
            ScoredOutcome(episode_id=episode, verdicts=verdicts[episode], outcome_kinds=kinds[episode])
            for episode in sorted(kinds)
            if episode in verdicts
        ]

    def _scored(self, episode_ids: list[str]) -> Iterator[ArchivedVerdict]:
        with self.engine.connect() as conn:
            for start in range(0, len(episode_ids), CHUNK):
                chunk = episode_ids[start : start + CHUNK]
                query = sa.select(A.c.episodeid, A.c.seq, A.c.time, A.c.structured).where(
                    SCORED, A.c.episodeid.in_(chunk)
                )
                for row in conn.execute(query):
                    verdict = _decode(row)
                    if verdict is not None:
                        yield verdict


def _decode(row: Any) -> ArchivedVerdict | None:
    # An archived event that no longer decodes is `loopline audit verify`'s to report, not ours.
    try:
        data = from_structured(json.loads(row.structured)).data
    except (EventDecodeError, ValueError):
        return None
    if not isinstance(data, VerifierScored):
        return None
    verdict = data.verdict
    return ArchivedVerdict(
        episode_id=row.episodeid,
        verifier=verdict.verifier,
        score=verdict.score,
        passed=verdict.passed,
        task_id=data.task_id,
        seq=row.seq,
        scored_at=row.time,
    )


def _candidate(episode_id: str, scored_at: datetime, verdicts: list[ArchivedVerdict]) -> LabelCandidate:
    task_ids = [v.task_id for v in verdicts if v.task_id is not None]
    return LabelCandidate(
        episode_id=episode_id,
        task_id=task_ids[0] if task_ids else None,
        scored_at=scored_at,
        verifiers=sorted({v.verifier for v in verdicts}),
    )
