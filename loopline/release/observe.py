"""Production episodes feed the canary's sequential test (docs/release.md).

For each finished episode in the archive this reads the adapter that served it and how it was
routed (the policy on `episode.started`), the verifiers' verdicts on it (`verifier.scored`, the
latest per verifier) and the later business outcomes (`outcome.observed`), decides whether it
passed, and counts it once for its arm with `ReleaseManager.observe`.

Only episodes the bridge itself routed count: their `episode.started` comes from a bridge source
and says `champion` or `canary`. An outside agent's gateway episode (`external`), an evaluation
rollout or a scripted run is never evidence for either arm, whatever adapter it names.

An episode passes when every verifier that scored it passed it and no business outcome
contradicts it (`envs.verifiers.agreement.business_truth`). An episode no verifier scored counts by
its business outcome alone; one without a business outcome waits for a later run (outcomes are
required by default: a verifier alone never decides a release). Only episodes that started after the
canary was deployed count, so the two arms are compared over the same stretch of live work.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from envs.verifiers.agreement import business_truth
from schemas.codec import EventDecodeError, from_structured
from schemas.events import EpisodeEnded, EpisodeStarted, OutcomeObserved, VerifierScored
from training.release.manager import ReleaseManager


@dataclass
class ServedEpisode:
    """What the archive says about one episode: who served it, how it was judged, what followed."""

    episode_id: str
    adapter_id: str | None = None
    started_at: datetime | None = None
    ended: bool = False
    verdicts: dict[str, bool] = field(default_factory=dict)
    outcome_kinds: list[str] = field(default_factory=list)
    route: str | None = None
    """How the bridge routed it (`PolicyRef.route`)."""
    source: str | None = None
    """The CloudEvents source of its `episode.started`."""


@dataclass(frozen=True)
class ObserveReport:
    """One pass over the archive: episodes counted now, counted before or not the canary's,
    and waiting for a verdict or an outcome."""

    canary_id: str | None
    counted: int
    not_counted: int
    waiting: int


def served_episodes(streams: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, ServedEpisode]:
    """Fold archived `(stream, structured event)` pairs into the episodes they tell of (streams that
    never started an episode, and events that no longer decode, are left out)."""
    found: dict[str, ServedEpisode] = {}
    for stream, doc in streams:
        try:
            event = from_structured(doc)
        except EventDecodeError:
            continue  # `loopline audit verify` reports an archived event that no longer decodes
        data = event.data
        episode = found.setdefault(stream, ServedEpisode(stream))
        if isinstance(data, EpisodeStarted):
            episode.adapter_id, episode.started_at = data.policy.adapter_id, event.time
            episode.route, episode.source = data.policy.route, event.source
        elif isinstance(data, EpisodeEnded):
            episode.ended = True
        elif isinstance(data, VerifierScored):
            episode.verdicts[data.verdict.verifier] = data.verdict.passed
        elif isinstance(data, OutcomeObserved):
            episode.outcome_kinds.append(data.kind)
    return {key: ep for key, ep in found.items() if ep.started_at is not None}


BRIDGE_SOURCE_PREFIX = "loopline://bridge/"
ROUTED = frozenset({"champion", "canary"})


def bridge_routed(episode: ServedEpisode) -> bool:
    """Whether the bridge's own router sent this episode to the champion or the canary."""
    return episode.route in ROUTED and (episode.source or "").startswith(BRIDGE_SOURCE_PREFIX)


def episode_passed(episode: ServedEpisode, *, domain: str | None, require_outcome: bool) -> bool | None:
    """Whether the episode passed; None while it cannot be judged yet."""
    if not episode.ended:
        return None
    truth = business_truth(episode.outcome_kinds, domain)
    if truth is None and (require_outcome or not episode.verdicts):
        return None
    return all(episode.verdicts.values()) and truth is not False


def observe_episodes(
    manager: ReleaseManager,
    episodes: Iterable[ServedEpisode],
    *,
    domain: str | None = None,
    require_outcome: bool = True,
) -> ObserveReport:
    """Count each judged episode of the live canary's window once (in the order they started);
    episodes the bridge did not route are not counted."""
    canary = manager.routing().canary
    if canary is None:
        return ObserveReport(None, 0, 0, 0)
    counted = not_counted = waiting = 0
    ordered = sorted(episodes, key=lambda ep: (ep.started_at or canary.updated_at, ep.episode_id))
    for episode in ordered:
        if episode.started_at is None or episode.started_at < canary.updated_at:
            continue
        if not bridge_routed(episode):
            not_counted += 1
            continue
        passed = episode_passed(episode, domain=domain, require_outcome=require_outcome)
        if passed is None:
            waiting += 1
        elif manager.observe(episode.episode_id, episode.adapter_id, passed, route=episode.route):
            counted += 1
        else:
            not_counted += 1
    return ObserveReport(canary.adapter_id, counted, not_counted, waiting)
