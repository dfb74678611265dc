"""Hand-built, deterministic episode streams for the store, detect and streams tests."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from schemas import EpisodeChain, Event, ToolCall, ToolError, WorkItem
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.tools import SideEffect, ToolOutcome

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class EpisodeBuilder:
    """Appends typed events to one episode stream with a ticking clock (one second per event)."""

    def __init__(
        self, episode_id: str = "ep-1", *, tenant: str = "acme", item_id: str = "CLM-1", start: datetime = T0
    ) -> None:
        ticks = itertools.count()
        self.item_id = item_id
        self.chain = EpisodeChain(
            episode_id,
            tenant=tenant,
            source="loopline://bridge/test",
            clock=lambda: start + timedelta(seconds=next(ticks)),
        )
        self.events: list[Event] = []
        self._calls = itertools.count(1)

    @property
    def episode_id(self) -> str:
        return self.chain.episode_id

    def _add(self, data: Any) -> Event:
        event = self.chain.append(data)
        self.events.append(event)
        return event

    def started(self, *, route: str = "champion", adapter_id: str | None = None) -> Event:
        item = WorkItem(domain="rcm", kind="denial", item_id=self.item_id, instructions="work the denial")
        policy = PolicyRef(model="policy-small", adapter_id=adapter_id, route=route)  # type: ignore[arg-type]
        return self._add(
            EpisodeStarted(
                work_item=item,
                policy=policy,
                tools=("get_claim",),
                tools_hash="t" * 8,
                system_prompt_hash="p" * 8,
                max_steps=10,
                max_seconds=60.0,
            )
        )

    def responded(self, turn: int = 0, *, invalid_reason: str | None = None) -> Event:
        return self._add(ModelResponded(turn=turn, content="thinking", invalid_reason=invalid_reason))

    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        side_effect: SideEffect | None = SideEffect.READ,
    ) -> str:
        call_id = f"call-{next(self._calls)}"
        self._add(
            ToolCalled(
                call=ToolCall(call_id=call_id, name=name, arguments=arguments or {}), side_effect=side_effect
            )
        )
        return call_id

    def returned(
        self, call_id: str, name: str, result: dict[str, Any] | None = None, *, latency_ms: float = 50.0
    ) -> Event:
        return self._add(ToolReturned(call_id=call_id, name=name, result=result or {}, latency_ms=latency_ms))

    def failed(
        self,
        call_id: str,
        name: str,
        *,
        kind: str = "http",
        status_code: int | None = 503,
        outcome: ToolOutcome = ToolOutcome.FAILED,
        details: dict[str, Any] | None = None,
        latency_ms: float = 80.0,
    ) -> Event:
        error = ToolError(
            kind=kind, message=f"{kind} failure", status_code=status_code, details=details or {}
        )  # type: ignore[arg-type]
        return self._add(
            ToolFailed(call_id=call_id, name=name, error=error, outcome=outcome, latency_ms=latency_ms)
        )

    def escalated(
        self,
        reason: str = "write-off above limit",
        *,
        trigger: str = "policy",
        queue: str | None = "supervisor",
    ) -> Event:
        return self._add(Escalated(reason=reason, trigger=trigger, queue=queue))  # type: ignore[arg-type]

    def intervened(self, action: str = "override", *, payload: dict[str, Any] | None = None) -> Event:
        return self._add(
            HumanIntervened(actor="u-7", role="supervisor", action=action, note="no", payload=payload or {})  # type: ignore[arg-type]
        )

    def ended(self, status: str = "completed", *, steps: int = 1, tool_calls: int = 1) -> Event:
        return self._add(EpisodeEnded(status=status, steps=steps, tool_calls=tool_calls, duration_ms=1500.0))  # type: ignore[arg-type]

    def outcome(
        self, kind: str = "paid", *, amount: str | None = "120.50", reason_codes: tuple[str, ...] = ()
    ) -> Event:
        return self._add(
            OutcomeObserved(
                kind=kind,
                item_id=self.item_id,
                observed_at=T0 + timedelta(days=14),
                amount=None if amount is None else Decimal(amount),
                reason_codes=reason_codes,
            )
        )


def typical_episode(
    episode_id: str = "ep-1", *, tenant: str = "acme", item_id: str = "CLM-1"
) -> EpisodeBuilder:
    """Started, two turns, a read that works, a write that fails with a 503, escalated, ended, paid."""
    ep = EpisodeBuilder(episode_id, tenant=tenant, item_id=item_id)
    ep.started()
    ep.responded(0)
    read = ep.call("get_claim", {"claim_id": item_id})
    ep.returned(read, "get_claim", {"claim_id": item_id, "status": "denied", "carc": "16"})
    ep.responded(1)
    write = ep.call("submit_appeal", {"claim_id": item_id}, side_effect=SideEffect.WRITE)
    ep.failed(write, "submit_appeal", kind="http", status_code=503)
    ep.escalated()
    ep.ended("escalated", steps=2, tool_calls=2)
    ep.outcome("paid")
    return ep
