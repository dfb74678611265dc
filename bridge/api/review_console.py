"""The console for the people who run the loop: the archive's latest episodes, every draft and its
state, the adapters in the release registry, and beside them the reviewers' labels and how far
reviewers agree (with each other and with each verifier), the reminders and escalations the
promotion workflows sent, and the access log of documents' real text. Agreement and the adapters
are read outside the bridge (`envs.verifiers.agreement`, the release store, by the composition
root) and handed in as plain figures."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from adapters.drafting.store import Notification, Reveal
from bridge.api.review_models import DraftSummary
from bridge.store.labels import ExpertLabel
from bridge.store.views import EpisodeSummary

LATEST_LABELS = 20
LATEST_EPISODES = 50


@dataclass(frozen=True)
class VerifierAgreement:
    """One verifier against the reviewers' labels of the episodes it scored."""

    verifier: str
    n: int
    kappa: float | None
    fit: bool
    reason: str


@dataclass(frozen=True)
class Agreements:
    """Who labelled how much, reviewers against each other, and each verifier against them."""

    reviewers: tuple[tuple[str, int], ...] = ()
    between_n: int = 0
    """Pairs of reviewers' labels on one episode."""
    between_kappa: float | None = None
    verifiers: tuple[VerifierAgreement, ...] = ()


AgreementSource = Callable[[], Agreements]
"""Measures the agreement figures now (from the label store and the archived verdicts)."""


@dataclass(frozen=True)
class AdapterRow:
    """One adapter in the release registry, as the console lists it."""

    adapter_id: str
    served_name: str
    state: str
    traffic_share: float
    gate: str
    """passed, forced (registered although the gate stopped it) or stopped."""
    parent: str | None
    base_model: str
    updated_at: datetime


AdapterSource = Callable[[], Sequence[AdapterRow]]
"""Reads the release registry's adapters now, newest change first."""


@dataclass(frozen=True)
class Console:
    """Everything the console shows."""

    drafts: Sequence[DraftSummary]
    labels: Sequence[ExpertLabel] = ()
    """The latest reviewers' labels, newest first."""
    label_count: int = 0
    agreements: Agreements | None = None
    notifications: Sequence[Notification] = ()
    """Reminders and escalations, newest first."""
    reveals: Sequence[Reveal] = ()
    """Reads of documents' real text, newest first."""
    stages: list[tuple[str, int]] = field(default_factory=list)
    episodes: Sequence[EpisodeSummary] = ()
    """The archive's latest episodes, newest first."""
    adapters: Sequence[AdapterRow] | None = None
    """The release registry's adapters (None: no registry is read here)."""

    @classmethod
    def of(
        cls,
        drafts: Sequence[DraftSummary],
        labels: Sequence[ExpertLabel],
        agreements: Agreements | None,
        notifications: Sequence[Notification],
        reveals: Sequence[Reveal],
        episodes: Sequence[EpisodeSummary] = (),
        adapters: Sequence[AdapterRow] | None = None,
    ) -> Console:
        """The console's figures from what the stores hold."""
        stages: dict[str, int] = {}
        for row in drafts:
            stages[row.status.stage] = stages.get(row.status.stage, 0) + 1
        newest = sorted(labels, key=lambda x: x.labelled_at, reverse=True)
        return cls(
            drafts=drafts,
            labels=newest[:LATEST_LABELS],
            label_count=len(labels),
            agreements=agreements,
            notifications=sorted(notifications, key=lambda n: n.sent_at, reverse=True),
            reveals=sorted(reveals, key=lambda r: r.at, reverse=True),
            stages=sorted(stages.items()),
            episodes=episodes,
            adapters=adapters,
        )
