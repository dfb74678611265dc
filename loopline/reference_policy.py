"""The reference specialist of a domain (`envs.rcm`, `envs.credit`) as a bridge `PolicyClient`.

The bridge's runtime speaks chat messages; the envs solver plans from (work item, turns). This
adapter reads both back from the conversation, asks the solver for the next action and answers as a
model would (a tool call, or a closing message). It lets the embedded demo and the sandbox run the
whole production path without a model server; the turns it sees are the live system's answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

from bridge.runtime import PolicyReply, ScriptedPolicy, act, ask_human, call, say
from bridge.runtime.policy import Message
from bridge.runtime.prompt import read_work_item_message
from envs.contract import Action, Finish, Turn
from schemas import ToolCall, ToolOutcome, ToolResult
from schemas.events import PolicyRef
from schemas.tools import ToolError


def turns_from_messages(messages: Sequence[Message]) -> tuple[Turn, ...]:
    """Every answered tool call of the conversation, in order."""
    calls: dict[str, ToolCall] = {}
    turns: list[Turn] = []
    for message in messages:
        if message.get("role") == "assistant":
            for raw in message.get("tool_calls") or ():
                fn = raw["function"]
                calls[raw["id"]] = ToolCall(
                    call_id=raw["id"], name=fn["name"], arguments=json.loads(fn["arguments"])
                )
        elif message.get("role") == "tool" and message.get("tool_call_id") in calls:
            tool_call = calls[message["tool_call_id"]]
            turns.append(Turn(call=tool_call, result=_result(tool_call, json.loads(message["content"]))))
    return tuple(turns)


def _result(tool_call: ToolCall, body: dict[str, Any]) -> ToolResult:
    outcome = ToolOutcome(body["outcome"])
    error = ToolError.model_validate(body["error"]) if body.get("error") else None
    return ToolResult(
        call_id=tool_call.call_id,
        name=tool_call.name,
        outcome=outcome,
        result=body.get("result"),
        error=error,
    )


Plan = Callable[[Any, tuple[Turn, ...]], Action]


def _plan(domain: str) -> Plan:
    if domain == "credit":
        from envs.credit.solver import reference_plan as credit_plan

        return credit_plan
    from envs.rcm.solver import reference_plan

    return reference_plan


def reference_reply(messages: Sequence[Message], domain: str = "rcm") -> PolicyReply:
    """The specialist's next move in this conversation."""
    reference_plan = _plan(domain)
    item = next((w for w in map(read_work_item_message, messages) if w is not None), None)
    if item is None:
        return say("I was not given a work item I can read; nothing done.")
    try:
        action = reference_plan(item, turns_from_messages(messages))
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        # A work item the domain accepted but the specialist cannot plan from (no office date,
        # no write-off limit): a human takes it, as an office would.
        missing = f"payload.{exc.args[0]}" if isinstance(exc, KeyError) and exc.args else str(exc)
        return ask_human(
            f"the reference specialist cannot work this item: {missing} is missing or unreadable"
        )
    if isinstance(action, Finish):
        return say(action.message or "case worked")
    return act(call(action.name, action.arguments, call_id=action.call_id))


def ReferencePolicy(domain: Literal["rcm", "credit"] = "rcm") -> ScriptedPolicy:
    """The domain's reference specialist behind the bridge's policy port."""
    model = "credit-reference-analyst" if domain == "credit" else "rcm-reference-specialist"
    return ScriptedPolicy(
        lambda messages: reference_reply(messages, domain), ref=PolicyRef(model=model, route="scripted")
    )
