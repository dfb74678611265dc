"""What the HTTP API needs, as one object the composition root builds (`BridgeServices`)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from adapters import Toolbox
from bridge.api.labels import Labelling
from bridge.api.models import RejectedEvent
from bridge.api.quota import DEFAULT_MAX_PER_CALLER
from bridge.api.review import Reviewing
from bridge.api.traces import TraceContexts
from bridge.runtime import EpisodeRunner
from bridge.store.reader import EpisodeStore
from engine import Recorder
from schemas import Event, WorkItem
from schemas.events import OutcomeObserved


@dataclass
class BridgeServices:
    """The runtime, the capture side and the read side, wired for one process and one tenant."""

    runner: EpisodeRunner
    """Runs the deployed policy (its toolbox is the live backend)."""
    toolbox: Toolbox
    """The tools external agents call through the gateway."""
    recorders: Callable[[str], Recorder]
    """Makes an episode's recorder (capture's `CaptureService.recorder`)."""
    record_outcome: Callable[[str, OutcomeObserved], Event]
    """Appends `outcome.observed` to an episode's stream (capture's `CaptureService.record_outcome`)."""
    reader: EpisodeStore
    """Episodes, events and edge cases, from the archive and projections."""
    reveal_phi: Callable[[str], str]
    """Looks a PHI token up in the vault (operator only; the route checks the role)."""
    payload_model: type[BaseModel] | None = None
    """The model of work-item payloads, so their PHI is tokenised."""
    capture_health: Callable[[], dict[str, Any]] | None = None
    """Capture's state for `/healthz` (`CaptureService.health`: the relay, its counters)."""
    rejected_events: Callable[[], list[RejectedEvent]] | None = None
    """Events capture kept but could never ship (the outbox's rejected rows), for operators."""
    unavailable: tuple[type[Exception], ...] = ()
    """Errors that mean events cannot be recorded right now (capture's `CaptureUnavailable`): the
    API answers them with 503, since nothing may run unrecorded."""
    labelling: Labelling | None = None
    """Expert labels and archived verdicts for `/v1/labels` (503 there without them)."""
    review: Reviewing | None = None
    """Task drafts and the desk that delivers reviews, for `/v1/review` and `/review` (503 without)."""
    work_item_problem: Callable[[WorkItem], str | None] | None = None
    """Why the domain cannot work a work item (naming the field), or None: checked before an
    episode starts, so a bad item is a 422, not a failure inside a policy or a tool."""
    metrics: Any = None
    """The process's Prometheus registry for `/metrics` (`bridge.metrics.bridge_registry`); None:
    the process collectors only."""
    traces: TraceContexts = field(default_factory=TraceContexts)
    """The `traceparent` of each new episode (the caller's header, or the episode's own); the
    composition root's `recorders` takes it from here."""
    executor: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(8, "episode"))
    """Threads that run episodes (the tool path is synchronous)."""
    max_episodes_per_caller: int = DEFAULT_MAX_PER_CALLER
    """Episodes one caller may have running or queued at once (`bridge.api.quota`)."""
