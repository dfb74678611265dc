"""An episode as a readable timeline: pure, from stored events (structured JSON) to rows.

Each row is (seq, time offset, kind, what, detail). Renderers (rich table, plain text) sit apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

MAX_DETAIL = 400


@dataclass(frozen=True)
class TimelineRow:
    seq: int
    offset_s: float
    kind: str
    what: str
    detail: str
    style: str = ""


def _short(value: Any, limit: int = MAX_DETAIL) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row(event: Mapping[str, Any], start: datetime) -> TimelineRow:
    data: dict[str, Any] = event.get("data") or {}
    kind = event["type"].removeprefix("loopline.").rsplit(".v", 1)[0]
    offset = (datetime.fromisoformat(event["time"]) - start).total_seconds()
    seq = int(event["seq"])
    match kind:
        case "episode.started":
            item = data.get("work_item", {})
            policy = data.get("policy", {})
            what = f"{item.get('kind')} {item.get('item_id')} · {policy.get('model')} ({policy.get('route')})"
            return TimelineRow(seq, offset, kind, what, _short(item.get("instructions", "")), "bold")
        case "model.responded":
            calls = ", ".join(c["name"] for c in data.get("tool_calls", ()))
            if data.get("invalid_reason"):
                return TimelineRow(
                    seq,
                    offset,
                    kind,
                    f"turn {data.get('turn')}: invalid",
                    _short(data["invalid_reason"]),
                    "yellow",
                )
            return TimelineRow(
                seq,
                offset,
                kind,
                f"turn {data.get('turn')}: {calls or 'message'}",
                _short(data.get("content") or ""),
            )
        case "tool.called":
            call = data.get("call", {})
            return TimelineRow(
                seq, offset, kind, call.get("name", "?"), _short(call.get("arguments", {})), "cyan"
            )
        case "tool.returned":
            return TimelineRow(
                seq,
                offset,
                kind,
                f"{data.get('name')} ok ({data.get('latency_ms', 0):.1f} ms)",
                _short(data.get("result", {})),
                "green",
            )
        case "tool.failed":
            error = data.get("error", {})
            status = f" HTTP {error['status_code']}" if error.get("status_code") else ""
            what = f"{data.get('name')} {data.get('outcome')}: {error.get('kind')}{status}"
            return TimelineRow(seq, offset, kind, what, _short(error.get("message", "")), "red")
        case "escalated":
            what = f"to {data.get('queue') or 'a human'} ({data.get('trigger')})"
            detail = data.get("reason", "") + (
                f" → {data['recommendation']}" if data.get("recommendation") else ""
            )
            return TimelineRow(seq, offset, kind, what, _short(detail), "magenta")
        case "episode.ended":
            what = f"{data.get('status')} after {data.get('steps')} turns, {data.get('tool_calls')} calls"
            return TimelineRow(seq, offset, kind, what, _short(data.get("final_message") or ""), "bold")
        case "outcome.observed":
            amount = f" ${data['amount']}" if data.get("amount") is not None else ""
            codes = ", ".join(data.get("reason_codes", ()))
            return TimelineRow(seq, offset, kind, f"{data.get('kind')}{amount}", codes, "bold blue")
        case "verifier.scored":
            verdict = data.get("verdict", {})
            failed = [c["name"] for c in verdict.get("checks", ()) if not c.get("passed")]
            return TimelineRow(
                seq,
                offset,
                kind,
                f"score {verdict.get('score')}",
                _short(", ".join(failed) or "all checks passed"),
                "bold",
            )
        case _:
            return TimelineRow(seq, offset, kind, "", _short(data))


def timeline(events: Iterable[Mapping[str, Any]]) -> list[TimelineRow]:
    """Rows in `seq` order; offsets are seconds since the episode's first event."""
    ordered = sorted(events, key=lambda e: int(e["seq"]))
    if not ordered:
        return []
    start = datetime.fromisoformat(ordered[0]["time"])
    return [_row(event, start) for event in ordered]
