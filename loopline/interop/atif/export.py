"""An archived episode as an ATIF v1.7 trajectory: the conversation the agent had, one step a turn.

Steps: the system prompt and the work item (as the runtime renders them), then one `agent` step per
`model.responded` with its calls and, as the step's observation, the results that answered them
(the `tool` message text the agent read). Calls no model turn proposed (an external agent's, sent
through the gateway) are one agent step each with `llm_call_count: 0`; an escalation the bridge
raised itself is a `system` step. Everything ATIF has no field for and a re-score needs (the task,
the work item, how the episode ended, the verifier's verdict, the chain's last hash) goes in
`extra.loopline`. PHI stays as the archive holds it: tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from adapters.chat import DEFAULT_SYSTEM_PROMPT, system_prompt, tool_message, work_item_message
from envs.domain import DOMAINS
from loopline.interop.atif import ATIF_VERSION
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    Escalated,
    ModelResponded,
    ToolCalled,
    ToolFailed,
    ToolReturned,
    VerifierScored,
)
from schemas.tools import ToolCall, ToolOutcome, ToolResult

AGENT_NAME = "loopline"


def _stamp(event: Event) -> str:
    return event.time.isoformat().replace("+00:00", "Z")


def _result_text(data: ToolReturned | ToolFailed) -> str:
    if isinstance(data, ToolReturned):
        result = ToolResult(call_id=data.call_id, name=data.name, outcome=ToolOutcome.OK, result=data.result)
    else:
        result = ToolResult(call_id=data.call_id, name=data.name, outcome=data.outcome, error=data.error)
    return str(tool_message(result)["content"])


def _calls(calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
    return [
        {"tool_call_id": c.call_id, "function_name": c.name, "arguments": dict(c.arguments)} for c in calls
    ]


def _agent_step(
    event: Event, message: str, calls: Sequence[ToolCall], results: dict[str, str], **fields: Any
) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "timestamp": _stamp(event), "message": message, **fields}
    if calls:
        step["tool_calls"] = _calls(calls)
        answered = [
            {"source_call_id": c.call_id, "content": results[c.call_id]}
            for c in calls
            if c.call_id in results
        ]
        if answered:
            step["observation"] = {"results": answered}
    return step


def episode_trajectory(stream: Sequence[Event]) -> dict[str, Any]:
    """The ATIF trajectory of one episode's events (in `seq` order); raises `ValueError` for a
    stream that is not an episode."""
    events = sorted(stream, key=lambda e: e.seq)
    first = next((e for e in events if isinstance(e.data, EpisodeStarted)), None)
    if first is None or not isinstance(first.data, EpisodeStarted):
        raise ValueError("not an episode: no episode.started in the stream")
    started = first.data
    domain = DOMAINS.get(started.work_item.domain)
    specs = {spec.name: spec for spec in domain.tool_specs()}
    results = {
        e.data.call_id: _result_text(e.data) for e in events if isinstance(e.data, ToolReturned | ToolFailed)
    }
    proposed = {c.call_id for e in events if isinstance(e.data, ModelResponded) for c in e.data.tool_calls}
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, started.work_item, domain.tool.rules.escalate_tool)
    steps: list[dict[str, Any]] = [
        {"source": "system", "timestamp": _stamp(first), "message": prompt},
        {
            "source": "user",
            "timestamp": _stamp(first),
            "message": work_item_message(started.work_item)["content"],
        },
    ]
    prompt_tokens = completion_tokens = 0
    for event in events:
        data = event.data
        if isinstance(data, ModelResponded):
            metrics = {
                k: v
                for k, v in (
                    ("prompt_tokens", data.prompt_tokens),
                    ("completion_tokens", data.completion_tokens),
                )
                if v is not None
            }
            prompt_tokens += data.prompt_tokens or 0
            completion_tokens += data.completion_tokens or 0
            extra = {
                k: v
                for k, v in (("finish_reason", data.finish_reason), ("invalid_reason", data.invalid_reason))
                if v
            }
            step = _agent_step(event, data.content or "", data.tool_calls, results, llm_call_count=1)
            if metrics:
                step["metrics"] = metrics
            if extra:
                step["extra"] = extra
            steps.append(step)
        elif isinstance(data, ToolCalled) and data.call.call_id not in proposed:
            steps.append(_agent_step(event, "", [data.call], results, llm_call_count=0))
        elif isinstance(data, Escalated) and data.trigger != "policy":
            steps.append(
                {"source": "system", "timestamp": _stamp(event), "message": f"escalated: {data.reason}"}
            )
    for number, step in enumerate(steps, start=1):
        step["step_id"] = number
    ended = [e.data for e in events if isinstance(e.data, EpisodeEnded)]
    scored = [e.data for e in events if isinstance(e.data, VerifierScored)]
    loopline = {
        "episode_id": first.episodeid,
        "tenant": first.tenant,
        "task_id": started.task_id,
        "work_item": started.work_item.model_dump(mode="json"),
        "status": ended[-1].status if ended else None,
        "final_message": ended[-1].final_message if ended else None,
        "verdict": scored[-1].verdict.model_dump(mode="json") if scored else None,
        "last_hash": events[-1].hash,
    }
    return {
        "schema_version": ATIF_VERSION,
        "session_id": first.episodeid,
        "trajectory_id": first.episodeid,
        "agent": {
            "name": AGENT_NAME,
            "version": started.policy.adapter_id or "base",
            "model_name": started.policy.model,
            "tool_definitions": [specs[n].openai_tool() for n in started.tools if n in specs],
            "extra": {"route": started.policy.route, "adapter_id": started.policy.adapter_id},
        },
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": prompt_tokens,
            "total_completion_tokens": completion_tokens,
            "total_steps": len(steps),
        },
        "extra": {"loopline": loopline},
    }
