"""The inspect timeline names every step of an episode in order, with failures and outcomes visible."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from loopline.inspect import timeline
from schemas import EpisodeChain, ToolCall, WorkItem
from schemas.codec import to_structured
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    OutcomeObserved,
    PolicyRef,
    ToolCalled,
    ToolFailed,
)
from schemas.tools import ToolError, ToolOutcome


def _events() -> list[dict]:  # type: ignore[type-arg]
    times = iter(datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=i) for i in range(10))
    chain = EpisodeChain("ep", tenant="acme", source="loopline://t", clock=lambda: next(times))
    item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1", instructions="work it")
    started = EpisodeStarted(
        work_item=item, policy=PolicyRef(model="m"), tools=("submit_appeal",), tools_hash="h",
        system_prompt_hash="p", max_steps=4, max_seconds=60,
    )  # fmt: skip
    error = ToolError(kind="http", message="upstream 503", status_code=503, retryable=True)
    return [
        to_structured(chain.append(started)),
        to_structured(
            chain.append(
                ToolCalled(call=ToolCall(call_id="c1", name="submit_appeal", arguments={"claim_id": "CLM-1"}))
            )
        ),
        to_structured(
            chain.append(
                ToolFailed(call_id="c1", name="submit_appeal", error=error, outcome=ToolOutcome.UNKNOWN)
            )
        ),
        to_structured(chain.append(EpisodeEnded(status="escalated", steps=1, tool_calls=1, duration_ms=2.0))),
        to_structured(
            chain.append(
                OutcomeObserved(
                    kind="denied",
                    item_id="CLM-1",
                    observed_at=datetime(2026, 2, 1, tzinfo=UTC),
                    amount=Decimal("120.00"),
                    reason_codes=("CO-29",),
                )
            )
        ),
    ]


def test_timeline_lists_every_event_in_seq_order_with_offsets() -> None:
    events = _events()
    rows = timeline(reversed(events))
    assert [r.seq for r in rows] == [0, 1, 2, 3, 4]
    assert [r.offset_s for r in rows] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert [r.kind for r in rows] == [
        "episode.started",
        "tool.called",
        "tool.failed",
        "episode.ended",
        "outcome.observed",
    ]


def test_failures_show_outcome_kind_and_http_status_and_outcomes_show_codes() -> None:
    rows = timeline(_events())
    assert rows[2].what == "submit_appeal unknown: http HTTP 503"
    assert rows[2].style == "red"
    assert '"claim_id": "CLM-1"' in rows[1].detail
    assert rows[4].what == "denied $120.00" and rows[4].detail == "CO-29"


def test_an_empty_episode_has_no_rows() -> None:
    assert timeline([]) == []
