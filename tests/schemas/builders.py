"""Small hand-built events for schema tests."""

from __future__ import annotations

from schemas import EpisodeChain, Event, ToolCall
from schemas.events import EpisodeEnded, Escalated, ToolCalled


def episode(n_calls: int = 3, episode_id: str = "ep-1") -> list[Event]:
    chain = EpisodeChain(episode_id, tenant="acme", source="loopline://test")
    out = [
        chain.append(ToolCalled(call=ToolCall(call_id=f"c{i}", name="get_claim", arguments={"i": i})))
        for i in range(n_calls)
    ]
    out.append(chain.append(Escalated(reason="needs approval", trigger="rule")))
    out.append(
        chain.append(EpisodeEnded(status="escalated", steps=n_calls, tool_calls=n_calls, duration_ms=5.0))
    )
    return out
