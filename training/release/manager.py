"""`ReleaseManager`: register, canary, promote and roll back adapters, each step a checked state
change stored with the events that tell it (`adapter.registered`, `adapter.deployed`,
`adapter.promoted`, `adapter.rolled_back`), hash-chained per adapter (`adapter:<id>`) and handed
to `publish` (a Kafka producer in production) after they are stored. The same stream holds the
facts that change no release state (`adapter.trained`, `adapter.evaluated`, via `append`), so an
adapter has exactly one stream.

The canary's decision is the sequential test over the episodes each arm served
(`training.release.sequential`); an operator can promote or roll back by hand, and the event says
who decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from schemas.chain import EpisodeChain
from schemas.events import AdapterDeployed, AdapterPromoted, AdapterRegistered, AdapterRolledBack
from schemas.registry import EventData
from training.release.sequential import SprtResult, SprtSettings, sprt
from training.release.states import ReleaseError, check_move
from training.release.store import AdapterRecord, SqlReleaseStore, StateChange, StoredEvent
from training.serve.pool import adapter_fingerprint

Publish = Callable[[dict[str, Any]], None]
SOURCE = "loopline://training/release"


@dataclass(frozen=True)
class Routing:
    """Who serves live episodes now: the champion (None = the base model) and the canary with its share."""

    champion: AdapterRecord | None
    canary: AdapterRecord | None
    canary_share: float


class ReleaseManager:
    """The release process over a `SqlReleaseStore`."""

    def __init__(
        self,
        store: SqlReleaseStore,
        *,
        tenant: str = "default",
        publish: Publish | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.tenant = tenant
        self.publish = publish
        self.clock = clock

    # -- registration ---------------------------------------------------------------------------

    def register(
        self,
        folder: Path,
        *,
        base_model: str,
        gate_passed: bool,
        gate_reasons: Sequence[str] = (),
        force: bool = False,
        served_name: str | None = None,
        adapter_id: str | None = None,
        parent_adapter_id: str | None = None,
    ) -> AdapterRecord:
        """Enter an adapter as a candidate. The gate must have passed it unless `force`; registering
        the same files under the same id again returns the record without a second event."""
        adapter_id = adapter_id or folder.name
        fingerprint = adapter_fingerprint(folder)
        existing = self.store.get(adapter_id)
        if existing is not None:
            if existing.fingerprint != fingerprint:
                raise ReleaseError(f"adapter id {adapter_id} is registered with other files: use a new id")
            return existing
        if not gate_passed and not force:
            reasons = "; ".join(gate_reasons) or "no reason given"
            raise ReleaseError(f"the gate stopped {adapter_id} ({reasons}); pass force to register it anyway")
        now = self.clock()
        record = AdapterRecord(
            adapter_id=adapter_id,
            served_name=served_name or adapter_id,
            folder=str(folder.resolve()),
            base_model=base_model,
            fingerprint=fingerprint,
            parent_adapter_id=parent_adapter_id,
            state="candidate",
            traffic_share=0.0,
            gate_passed=gate_passed,
            forced=force and not gate_passed,
            created_at=now,
            updated_at=now,
        )
        event = AdapterRegistered(
            adapter_id=adapter_id,
            served_name=record.served_name,
            base_model=base_model,
            artifact_uri=record.folder,
            fingerprint=fingerprint,
            parent_adapter_id=parent_adapter_id,
            gate_passed=gate_passed,
            forced=record.forced,
            gate_reasons=tuple(gate_reasons),
        )
        sealed = self._seal(adapter_id, [event], now)
        self.store.add(record, sealed)
        self._publish(sealed)
        return record

    # -- state changes --------------------------------------------------------------------------

    def deploy_canary(self, adapter_id: str, share: float) -> AdapterRecord:
        """Route `share` of live episodes (sticky per work item) to a candidate."""
        if not 0 < share < 1:
            raise ReleaseError(f"a canary share lies strictly between 0 and 1, not {share}")
        record = self._get(adapter_id)
        check_move(adapter_id, record.state, "canary")
        active = self.store.adapters("canary")
        if active:
            raise ReleaseError(f"adapter {active[0].adapter_id} is already the canary; decide it first")
        event = AdapterDeployed(adapter_id=adapter_id, stage="canary", traffic_share=share)
        self._apply([StateChange(adapter_id, record.state, "canary", share)], adapter_id, [event])
        return self._get(adapter_id)

    def promote(
        self,
        adapter_id: str,
        *,
        decided_by: Literal["sequential_test", "operator"] = "operator",
        reason: str = "promoted by an operator",
        evidence: dict[str, float] | None = None,
    ) -> AdapterRecord:
        """The canary becomes the champion; the champion it replaces is retired."""
        record = self._get(adapter_id)
        check_move(adapter_id, record.state, "champion")
        changes = [StateChange(adapter_id, record.state, "champion", 1.0)]
        previous = self.routing().champion
        if previous is not None:
            changes.append(StateChange(previous.adapter_id, "champion", "retired", 0.0))
        events: list[EventData] = [
            AdapterPromoted(
                adapter_id=adapter_id,
                previous_champion_id=previous.adapter_id if previous else None,
                decided_by=decided_by,
                reason=reason,
                evidence=evidence or {},
            ),
            AdapterDeployed(adapter_id=adapter_id, stage="champion", traffic_share=1.0),
        ]
        self._apply(changes, adapter_id, events)
        return self._get(adapter_id)

    def roll_back(
        self, adapter_id: str, *, reason: str, metrics: dict[str, float] | None = None
    ) -> AdapterRecord:
        """Withdraw a canary (the champion keeps serving) or the champion (the one it replaced
        serves again, or the base model)."""
        record = self._get(adapter_id)
        check_move(adapter_id, record.state, "rolled_back")
        changes = [StateChange(adapter_id, record.state, "rolled_back", 0.0)]
        if record.state == "champion":
            restored = self._replaced_by(adapter_id)
            if restored is not None:
                changes.append(StateChange(restored.adapter_id, "retired", "champion", 1.0))
        else:
            restored = self.routing().champion
        event = AdapterRolledBack(
            adapter_id=adapter_id,
            restored_adapter_id=restored.adapter_id if restored else None,
            reason=reason,
            metrics=metrics or {},
        )
        self._apply(changes, adapter_id, [event])
        return self._get(adapter_id)

    # -- the canary -----------------------------------------------------------------------------

    def routing(self) -> Routing:
        """The champion and the canary now."""
        champions = self.store.adapters("champion")
        canaries = self.store.adapters("canary")
        canary = canaries[0] if canaries else None
        return Routing(champions[0] if champions else None, canary, canary.traffic_share if canary else 0.0)

    def observe(
        self, episode_id: str, served_adapter_id: str | None, passed: bool, *, route: str | None
    ) -> bool:
        """Count a finished episode for the canary under test: its arm is the route the router
        gave it, which must agree with the adapter that served it. False when no canary is live,
        the episode was counted already, it was not routed to champion or canary (an outside
        agent's, a scripted run), or another adapter served it."""
        routing = self.routing()
        if routing.canary is None:
            return False
        champion_id = routing.champion.adapter_id if routing.champion else None
        if route == "canary" and served_adapter_id == routing.canary.adapter_id:
            arm = "canary"
        elif route == "champion" and served_adapter_id == champion_id:
            arm = "champion"
        else:
            return False
        return self.store.observe(episode_id, routing.canary.adapter_id, arm, passed, self.clock())

    def evaluate(self, adapter_id: str, settings: SprtSettings | None = None) -> SprtResult:
        """The sequential test over the canary's episodes so far (no change made)."""
        canary, champion = self.store.observations(adapter_id)
        return sprt(canary, champion, settings)

    def decide(self, adapter_id: str, settings: SprtSettings | None = None) -> SprtResult:
        """Run the test and act on it: promote, roll back, or leave the canary collecting."""
        record = self._get(adapter_id)
        if record.state != "canary":
            raise ReleaseError(f"adapter {adapter_id} is {record.state}, not a canary")
        result = self.evaluate(adapter_id, settings)
        evidence = result.evidence()
        if result.decision == "promote":
            self.promote(adapter_id, decided_by="sequential_test", reason=result.reason, evidence=evidence)
        elif result.decision == "roll_back":
            self.roll_back(adapter_id, reason=result.reason, metrics=evidence)
        return result

    def events(self, adapter_id: str | None = None) -> list[dict[str, Any]]:
        """The adapter event trail (CloudEvents structured JSON), of one adapter or all."""
        return self.store.events(adapter_id)

    def append(self, adapter_id: str, events: Sequence[EventData]) -> list[dict[str, Any]]:
        """Add facts about an adapter that change no state (its training, a gate's verdict) to its
        stream, which need not have a release record yet; stored, then published like the rest."""
        now = self.clock()
        sealed = self._seal(adapter_id, events, now)
        self.store.apply([], sealed, now)
        self._publish(sealed)
        return [event.doc for event in sealed]

    # -- plumbing -------------------------------------------------------------------------------

    def _get(self, adapter_id: str) -> AdapterRecord:
        record = self.store.get(adapter_id)
        if record is None:
            raise ReleaseError(f"no adapter {adapter_id!r} is registered")
        return record

    def _replaced_by(self, adapter_id: str) -> AdapterRecord | None:
        for event in reversed(self.store.events(adapter_id)):
            if event["type"] == AdapterPromoted.TYPE:
                previous = event["data"]["previous_champion_id"]
                return self.store.get(previous) if previous else None
        return None

    def _apply(self, changes: list[StateChange], adapter_id: str, events: Sequence[EventData]) -> None:
        for change in changes:
            check_move(change.adapter_id, change.expected, change.target)
        now = self.clock()
        sealed = self._seal(adapter_id, events, now)
        self.store.apply(changes, sealed, now)
        self._publish(sealed)

    def _seal(self, adapter_id: str, events: Sequence[EventData], now: datetime) -> list[StoredEvent]:
        stream = f"adapter:{adapter_id}"
        head = self.store.stream_head(stream)
        chain = (
            EpisodeChain(stream, tenant=self.tenant, source=SOURCE, next_seq=head[0] + 1, prevhash=head[1])
            if head
            else EpisodeChain(stream, tenant=self.tenant, source=SOURCE)
        )
        out = []
        for data in events:
            event = chain.append(data, subject=adapter_id, time=now)
            out.append(
                StoredEvent(
                    event_id=event.id,
                    stream=stream,
                    seq=event.seq,
                    hash=event.hash,
                    type=event.type,
                    adapter_id=adapter_id,
                    doc=event.model_dump(mode="json"),
                )
            )
        return out

    def _publish(self, events: Sequence[StoredEvent]) -> None:
        """Send the adapter's whole stream, not just the new events: an earlier step stored without
        publishing (a gate run offline) is sent first, so the archive never sees a gap, and it
        keeps each event once (a redelivery is recognised by source and id)."""
        if self.publish is None or not events:
            return
        for doc in self.store.events(events[0].adapter_id):
            self.publish(doc)
