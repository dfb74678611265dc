"""A `ChatPolicy` as an environment policy: each turn it is sent the runtime's own messages.

The environment hands a policy the work item and the turns so far; this adapter renders them with
`adapters.chat` exactly as the bridge's runtime renders a live episode (and as the datasets hold
them), asks the chat policy, and turns its reply into the next call or the end of the episode.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.chat import (
    DEFAULT_SYSTEM_PROMPT,
    Message,
    arguments_text,
    system_prompt,
    tool_calls_message,
    tool_message,
    work_item_message,
)
from envs.contract import Action, Finish, Observation
from envs.domain import DOMAINS
from envs.rollout.policy import History
from schemas.tools import ToolCall
from training.chat import ChatPolicy
from training.data.episodes import escalate_tool

MALFORMED = "the model's reply was not a usable tool call"


def conversation(history: History) -> list[Message]:
    """The messages the runtime would have sent after these turns."""
    item = history.work_item
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, item, escalate_tool(DOMAINS.get(item.domain)))
    messages: list[Message] = [{"role": "system", "content": prompt}, work_item_message(item)]
    for turn in history.turns:
        call = turn.call
        messages.append(tool_calls_message(None, [(call.call_id, call.name, arguments_text(call.arguments))]))
        messages.append(tool_message(turn.result))
    return messages


@dataclass
class ChatEnvPolicy:
    """Runs a chat policy in `envs` rollouts (in-process: `workers=1`)."""

    chat: ChatPolicy
    calls: int = field(default=0)

    @property
    def name(self) -> str:
        return self.chat.name

    def act(self, observation: Observation, tools: Sequence[Mapping[str, Any]], history: History) -> Action:
        offered = list(tools) or list(observation.tools)
        reply = self.chat.complete(conversation(history), offered)
        self.calls += 1
        if not reply.tool_calls:
            return Finish(message=reply.content or "")
        call = reply.tool_calls[0]
        try:
            arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            return Finish(message=f"{MALFORMED}: {call.arguments[:200]}")
        if not isinstance(arguments, dict):
            return Finish(message=f"{MALFORMED}: {call.arguments[:200]}")
        return ToolCall(
            call_id=call.call_id or f"call-{len(history.turns) + 1}", name=call.name, arguments=arguments
        )
