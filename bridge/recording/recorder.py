"""`EpisodeRecorder`: what the agent runtime calls to record one episode, event by event.

Each method redacts PHI (schema-driven, `bridge.phi.Redactor`), seals the next event of the
episode's hash chain (`schemas.EpisodeChain`) and returns once the sink holds it durably. When the
sink refuses an event the chain is rolled back, so the next event takes the same seq: no gap.

World snapshots hold PHI like payloads but have no model on the event, so a snapshot is refused
unless the recorder has a `snapshot_redact`. Free text has no schema, so it is scrubbed instead
(`Redactor.scrub`): work-item instructions, the model's text and raw replies, tool error messages,
escalation reasons and recommendations, notes, final messages and an outcome's external reference
lose every value the episode's PHI fields held (exact and usual forms) and every pattern-class
match (docs/capture.md).

Then every event passes the PHI guard (`bridge.phi.guard.EventGuard`) before it is sealed: every
key and value of it is a declared literal, an identifier or code of its declared shape with no PHI
in it, a tool the domain offers, or scrubbed; anything else is tokenised (fails closed). The
event's subject is taken from the guarded event, so it never holds what the event may not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel

from bridge.phi import KnownPhi, Redactor, SnapshotRedact
from bridge.phi.guard import EventGuard
from bridge.recording.sink import GENESIS_HEAD, StreamHead
from engine import EventSink
from engine.chained import ChainRecorder
from schemas import (
    EpisodeChain,
    Event,
    EventData,
    new_id,
)
from schemas.events import (
    EpisodeInterrupted,
    EpisodeStarted,
    HumanIntervened,
    OutcomeObserved,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.traceparent import episode_traceparent

HumanAction = Literal["approve", "reject", "override", "takeover", "annotate"]


def utc_now() -> datetime:
    """The current time, timezone-aware (the chain's default clock)."""
    return datetime.now(UTC)


class EpisodeRecorder(ChainRecorder):
    """Records the events of one episode. Not thread-safe: one episode is worked by one thread."""

    def __init__(
        self,
        episode_id: str,
        *,
        sink: EventSink,
        redactor: Redactor,
        source: str,
        head: StreamHead = GENESIS_HEAD,
        args_models: Mapping[str, type[BaseModel]] | None = None,
        snapshot_redact: SnapshotRedact | None = None,
        traceparent: str | None = None,
        clock: Callable[[], datetime] = utc_now,
        id_factory: Callable[[], str] = new_id,
        known: KnownPhi | None = None,
    ) -> None:
        self._chain = EpisodeChain(
            episode_id,
            tenant=redactor.tenant,
            source=source,
            next_seq=head.next_seq,
            prevhash=head.prevhash,
            clock=clock,
            id_factory=id_factory,
        )
        # Every event names the episode's trace: the caller's context, or the episode's own.
        self._traceparent = traceparent or episode_traceparent(episode_id)
        self._sink, self._redactor = sink, redactor
        self._args_models = dict(args_models or {})
        self._snapshot_redact = snapshot_redact
        self._known = known if known is not None else KnownPhi()  # what the episode showed so far
        tools = None if args_models is None else frozenset(args_models)
        self._guard = redactor.guard(tools)

    @property
    def head(self) -> StreamHead:
        """Where the stream continues: next seq and the last event's hash."""
        return StreamHead(self._chain.next_seq, self._chain.prevhash)

    def _emit(self, data: EventData, subject: str | None = None) -> Event:
        if self._guard is not None:
            data = self._guard.guard(data, self._known)
            subject = _subject_of(data, subject, self._guard, self._known)
        seq, prevhash = self._chain.next_seq, self._chain.prevhash
        event, doc = self._chain.seal(data, subject=subject, traceparent=self._traceparent)
        try:
            self._sink.append(event, doc)
        except BaseException:
            self._chain.next_seq, self._chain.prevhash = seq, prevhash  # no gap: reuse the seq
            raise
        return event

    def _redact(self, model: type[BaseModel] | None, data: dict[str, Any]) -> dict[str, Any]:
        return self._redactor.redact(model, data, self._known) if data else data

    def _scrub(self, text: str | None) -> str | None:
        return self._redactor.scrub(text, self._known) if text else text

    def _args_model(self, tool: str) -> type[BaseModel] | None:
        return self._args_models.get(tool)

    def _redact_snapshot(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        if self._snapshot_redact is None:
            raise ValueError(
                "a world snapshot holds PHI; build the recorder with snapshot_redact "
                "(Redactor.snapshot_redactor(model), or an identity function for synthetic worlds)"
            )
        return self._snapshot_redact(snapshot)

    def human_intervened(
        self,
        actor: str,
        role: str,
        action: HumanAction,
        *,
        note: str = "",
        payload: dict[str, Any] | None = None,
        payload_model: type[BaseModel] | None = None,
    ) -> Event:
        """Record what a human did (`payload` redacted by `payload_model`)."""
        payload = self._redact(payload_model, payload or {})
        data = HumanIntervened(
            actor=actor, role=role, action=action, note=self._scrub(note) or "", payload=payload
        )
        return self._emit(data)

    def interrupted(self, data: EpisodeInterrupted) -> Event:
        """Record that the episode was cut off and is closed by its bridge (`bridge.capture.recovery`)."""
        return self._emit(data.model_copy(update={"reason": self._scrub(data.reason) or "interrupted"}))

    def outcome_observed(
        self, data: OutcomeObserved, *, details_model: type[BaseModel] | None = None
    ) -> Event:
        """Record a later business fact about the episode's work item."""
        details = self._redact(details_model, data.details)
        external_ref = self._scrub(data.external_ref)
        if details is not data.details or external_ref != data.external_ref:
            data = data.model_copy(update={"details": details, "external_ref": external_ref})
        return self._emit(data, data.item_id)


def _subject_of(data: EventData, subject: str | None, guard: EventGuard, known: KnownPhi) -> str | None:
    """The subject of a guarded event: the field it names (its item, its tool), as guarded."""
    if subject is None:
        return None
    if isinstance(data, EpisodeStarted):
        return data.work_item.item_id
    if isinstance(data, ToolCalled):
        return data.call.name
    if isinstance(data, ToolReturned | ToolFailed):
        return data.name
    if isinstance(data, OutcomeObserved):
        return data.item_id
    return guard.subject(subject, "id", known)
