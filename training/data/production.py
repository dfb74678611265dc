"""Production episodes as a dataset source: the episodes the verifier passed and a later business
outcome confirmed, rendered into exactly the messages the runtime sent the model.

Training never imports the bridge: it reads archived events as `schemas` events, from a JSONL file
of structured CloudEvents (one a line, what the bridge's archive export and the rollout sinks
write) or as events the composition root passes in. An episode is taken when its stream holds
`episode.started`, `episode.ended` (completed or escalated), a `verifier.scored` that passed, and
`outcome.observed` facts whose business truth is good (`envs.verifiers.agreement.business_truth`:
the last of them that says good or bad says good), and no human overrode or took over its work.
Its rows pass through the same PHI surrogates as every other source (`training.data.builder`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from adapters.chat import (
    DEFAULT_SYSTEM_PROMPT,
    Message,
    arguments_text,
    system_prompt,
    tool_calls_message,
    tool_message,
    work_item_message,
)
from envs.domain import DOMAINS
from envs.tasksets import manifest_hash
from envs.verifiers.agreement import business_truth
from schemas.codec import EventDecodeError, from_structured
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    HumanIntervened,
    OutcomeObserved,
    ToolCalled,
    ToolFailed,
    ToolReturned,
    VerifierScored,
)
from schemas.tools import ToolOutcome, ToolResult
from training.data.episodes import DONE_MESSAGE, escalate_tool
from training.data.rows import ChatRow, RowMeta
from training.data.strict_calls import strict_arguments

FAMILY = "production"
"""The family of production rows (their work items carry no task family)."""


class EpisodeSourceError(ValueError):
    """An events file that cannot be read, with the line that broke it."""


@dataclass(frozen=True)
class EpisodeSet:
    """The confirmed episodes of one archive export, rendered as rows (PHI not yet replaced)."""

    label: str
    """`episodes:<file name>` (or the label the caller gave)."""
    set_hash: str
    """Hash over the taken episodes' last event hashes: equal for the same episodes."""
    episodes_seen: int
    """Episodes in the events."""
    rows: tuple[ChatRow, ...]
    """One row per taken episode."""
    skipped: dict[str, int]
    """Episodes not taken, by reason."""

    @property
    def domains(self) -> set[str]:
        """The domains of the taken episodes (their tools' PHI marks apply)."""
        return {r.extra["domain"] for r in self.rows}


def read_events(path: Path) -> list[Event]:
    """Every event of a JSONL file of structured CloudEvents, validated and upcast."""
    events = []
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise EpisodeSourceError(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append(from_structured(json.loads(line)))
        except (ValueError, EventDecodeError) as exc:
            raise EpisodeSourceError(f"{path}:{number}: not a Loopline event: {exc}") from None
    return events


def episode_set(events: Iterable[Event], *, label: str) -> EpisodeSet:
    """The verifier-passed, outcome-confirmed episodes of `events`, rendered in stream order."""
    streams: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        streams[event.episodeid].append(event)
    rows: list[ChatRow] = []
    hashes: list[str] = []
    skipped: dict[str, int] = defaultdict(int)
    for _, stream in sorted(streams.items()):
        if not any(isinstance(e.data, EpisodeStarted) for e in stream):
            continue  # not an episode (an adapter's or a task's stream)
        ordered = sorted({(e.source, e.id): e for e in stream}.values(), key=lambda e: e.seq)
        why = _not_taken(ordered)
        if why:
            skipped[why] += 1
            continue
        rows.append(episode_row(ordered))
        hashes.append(ordered[-1].hash)
    return EpisodeSet(
        label=label,
        set_hash=manifest_hash(sorted(hashes)),
        episodes_seen=sum(any(isinstance(e.data, EpisodeStarted) for e in s) for s in streams.values()),
        rows=tuple(rows),
        skipped=dict(sorted(skipped.items())),
    )


def _not_taken(stream: Sequence[Event]) -> str | None:
    """Why an episode's stream is not a confirmed success (None when it is one)."""
    ended = [e.data for e in stream if isinstance(e.data, EpisodeEnded)]
    if not ended or ended[-1].status not in ("completed", "escalated"):
        return "not ended (completed or escalated)"
    scored = [e.data for e in stream if isinstance(e.data, VerifierScored)]
    if not scored or not scored[-1].verdict.passed:
        return "verifier did not pass it"
    humans = [e.data for e in stream if isinstance(e.data, HumanIntervened)]
    if any(h.action in ("override", "takeover", "reject") for h in humans):
        return "a human overrode or took over"
    started = next((e.data for e in stream if isinstance(e.data, EpisodeStarted)), None)
    truth = business_truth(
        [e.data.kind for e in stream if isinstance(e.data, OutcomeObserved)],
        started.work_item.domain if started else None,
    )
    if truth is None:
        return "no confirming outcome yet"
    return None if truth else "outcome contradicted it"


def episode_row(stream: Sequence[Event]) -> ChatRow:
    """One episode as the runtime's messages: system prompt, work item, each call and its result,
    and the closing turn (none after a terminal tool, as the runtime stops there)."""
    started = next(e.data for e in stream if isinstance(e.data, EpisodeStarted))
    domain = DOMAINS.get(started.work_item.domain)
    specs = {spec.name: spec for spec in domain.tool_specs()}
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, started.work_item, escalate_tool(domain))
    messages: list[Message] = [{"role": "system", "content": prompt}, work_item_message(started.work_item)]
    terminal = False
    for event in stream:
        data = event.data
        if isinstance(data, ToolCalled):
            call = data.call
            spec = specs.get(call.name)
            arguments = call.arguments if spec is None else strict_arguments(spec, call.arguments)
            messages.append(tool_calls_message(None, [(call.call_id, call.name, arguments_text(arguments))]))
        elif isinstance(data, ToolReturned):
            messages.append(
                tool_message(
                    ToolResult(
                        call_id=data.call_id, name=data.name, outcome=ToolOutcome.OK, result=data.result
                    )
                )
            )
            terminal = data.name in domain.terminal_tools
        elif isinstance(data, ToolFailed):
            terminal = False
            messages.append(
                tool_message(
                    ToolResult(call_id=data.call_id, name=data.name, outcome=data.outcome, error=data.error)
                )
            )
    if not terminal:
        messages.append({"role": "assistant", "content": DONE_MESSAGE})
    scored = [e.data for e in stream if isinstance(e.data, VerifierScored)][-1]
    outcomes = [e.data.kind for e in stream if isinstance(e.data, OutcomeObserved)]
    meta = RowMeta(
        task_id=started.task_id or started.work_item.item_id,
        task_set="production",
        solution="episode",
        role="primary",
        family=FAMILY,
        tags=(f"verifier:{scored.verdict.verifier}",),
    )
    tools = [specs[name].openai_tool() for name in started.tools if name in specs]
    extra = {"episode_id": stream[0].episodeid, "domain": domain.name, "outcomes": outcomes}
    return ChatRow(messages=messages, tools=tools, meta=meta, extra=extra)
