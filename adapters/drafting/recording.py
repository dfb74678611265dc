"""An episode as its archived events recorded it: the work item and every tool call with what came
back, ready to be replayed. Pure and domain-neutral: the domain's tool specs say what is PHI.

`recorded_episode` reads the production event types (`episode.started`, `tool.called`,
`tool.returned`, `tool.failed`); `with_surrogates` swaps every PHI value (a capture token) for a
synthetic surrogate, schema-driven from each tool's argument and result models. A live error's
message is not PHI-scrubbed at capture (it is free text from the live system, and may quote a
member id), so a recorded failure keeps only its kind, status, retryability and domain code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import Field

from adapters.spec import ToolSpec
from adapters.surrogates import Surrogates
from schemas.base import Contract
from schemas.envelope import Event
from schemas.events import EpisodeStarted, ToolCalled, ToolFailed, ToolReturned
from schemas.tasks import WorkItem
from schemas.tools import ToolCall, ToolError, ToolOutcome

Specs = Mapping[str, ToolSpec[Any, Any]]
"""A domain's tool specs by name."""
WITHHELD = "live error text withheld from drafts (not PHI-scrubbed at capture)"


class RecordingError(ValueError):
    """Events that do not make an episode of the domain a draft can be built from."""


class RecordedCall(Contract):
    """One tool call of the episode and what the live system answered."""

    call: ToolCall
    """The call as the agent made it."""
    outcome: ToolOutcome
    """ok, failed, or unknown."""
    result: dict[str, object] | None = None
    """The result, when ok."""
    error: ToolError | None = None
    """The failure, when not ok (message withheld, see the module)."""


class RecordedEpisode(Contract):
    """The episode's work item and calls, in order."""

    episode_id: str
    """The source episode."""
    work_item: WorkItem
    """The work item as the agent saw it."""
    calls: tuple[RecordedCall, ...] = Field(default_factory=tuple)
    """Every answered tool call, in order."""


def recorded_episode(events: Iterable[Event], domain: str) -> RecordedEpisode:
    """The `domain` episode the events (one stream, `seq` order) record."""
    started: EpisodeStarted | None = None
    episode_id = ""
    pending: dict[str, ToolCall] = {}
    calls: list[RecordedCall] = []
    for event in events:
        data = event.data
        if isinstance(data, EpisodeStarted):
            started, episode_id = data, event.episodeid
        elif isinstance(data, ToolCalled):
            pending[data.call.call_id] = data.call
        elif isinstance(data, ToolReturned) and data.call_id in pending:
            calls.append(
                RecordedCall(call=pending.pop(data.call_id), outcome=ToolOutcome.OK, result=data.result)
            )
        elif isinstance(data, ToolFailed) and data.call_id in pending:
            error = data.error.model_copy(
                update={"message": WITHHELD, "details": _code_only(data.error.details)}
            )
            calls.append(RecordedCall(call=pending.pop(data.call_id), outcome=data.outcome, error=error))
    if started is None:
        raise RecordingError("no episode.started event: not a whole episode")
    if started.work_item.domain != domain:
        raise RecordingError(f"episode {episode_id} works a {started.work_item.domain!r} item, not {domain}")
    return RecordedEpisode(episode_id=episode_id, work_item=started.work_item, calls=tuple(calls))


def episode_domain(events: Iterable[Event]) -> str | None:
    """The domain of the work item the episode's `episode.started` names (None without one)."""
    return next((e.data.work_item.domain for e in events if isinstance(e.data, EpisodeStarted)), None)


def with_surrogates(episode: RecordedEpisode, surrogates: Surrogates, specs: Specs) -> RecordedEpisode:
    """The episode with every PHI value (token or raw) replaced by its surrogate."""
    calls = []
    for recorded in episode.calls:
        spec = specs.get(recorded.call.name)
        arguments = surrogates.model_data(spec.args_model if spec else None, recorded.call.arguments)
        result = (
            surrogates.model_data(spec.result_model if spec else None, recorded.result)
            if recorded.result is not None
            else None
        )
        calls.append(
            recorded.model_copy(
                update={"call": recorded.call.model_copy(update={"arguments": arguments}), "result": result}
            )
        )
    item = episode.work_item
    work_item = item.model_copy(
        update={
            "payload": surrogates.scrub(item.payload),
            "instructions": surrogates.scrub(item.instructions),
        }
    )
    return episode.model_copy(update={"work_item": work_item, "calls": tuple(calls)})


def _code_only(details: dict[str, object]) -> dict[str, object]:
    return {"code": details["code"]} if "code" in details else {}
