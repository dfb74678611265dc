"""Trajectories as chat rows: exactly the messages the bridge's runtime sends a model.

A gold (or alternative) trajectory of a task is replayed in a fresh environment, and every turn is
rendered with `adapters.chat`, the runtime's own rendering: the system prompt, the work item, one
assistant message per tool call, one `tool` message per result. An episode the escalate tool ends
stops there, as the runtime stops; any other ends with the assistant's closing text, which is how a
model tells the runtime it is done. Each call is written with every key its strict schema requires
(`training.data.strict_calls`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from adapters.chat import (
    DEFAULT_SYSTEM_PROMPT,
    Message,
    arguments_text,
    system_prompt,
    tool_calls_message,
    tool_message,
    work_item_message,
)
from envs.domain import DOMAINS, Domain
from envs.env import DEFAULT_MAX_STEPS, ToolEnv
from schemas.tasks import Task
from schemas.tools import ToolCall
from training.data.rows import ChatRow, RowMeta
from training.data.sources import task_family
from training.data.strict_calls import strict_arguments

DONE_MESSAGE = "case worked"
"""The closing text of an episode that ends without a hand-off (the reference specialist's words)."""


def escalate_tool(domain: Domain) -> str:
    """The tool the runtime is configured to treat as the hand-off to a human for this domain."""
    return min(domain.escalation_tools) if domain.escalation_tools else "escalate"


def solution_row(
    task: Task,
    calls: Sequence[ToolCall],
    *,
    task_set: str,
    solution: str,
    role: Literal["primary", "replay"],
    seed: int = 0,
) -> ChatRow:
    """One trajectory of `task` as a chat row (replayed with `seed`; calls after the end are dropped)."""
    domain = DOMAINS.get(task.domain)
    env = ToolEnv(domain, max_steps=max(DEFAULT_MAX_STEPS, len(calls)))
    observation = env.reset(task, seed=seed)
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, task.work_item, escalate_tool(domain))
    messages: list[Message] = [{"role": "system", "content": prompt}, work_item_message(task.work_item)]
    specs = {spec.name: spec for spec in domain.tool_specs()}
    for call in calls:
        if env.done:
            break
        spec = specs.get(call.name)
        arguments = call.arguments if spec is None else strict_arguments(spec, call.arguments)
        messages.append(tool_calls_message(None, [(call.call_id, call.name, arguments_text(arguments))]))
        after, _ = env.step(call)
        assert after.result is not None  # a tool call always has a result
        messages.append(tool_message(after.result))
    if env.end_reason != "terminal_tool":
        messages.append({"role": "assistant", "content": DONE_MESSAGE})
    meta = RowMeta(
        task_id=task.task_id,
        task_set=task_set,
        solution=solution,
        role=role,
        family=task_family(task),
        tags=task.tags,
    )
    return ChatRow(messages=messages, tools=list(observation.tools), meta=meta)


def task_rows(task: Task, *, task_set: str, role: Literal["primary", "replay"]) -> list[ChatRow]:
    """A row for the task's gold solution and one for each alternative solution."""
    solutions = [("gold", task.gold_solution)] + [
        (f"alternative-{i}", calls) for i, calls in enumerate(task.alternative_solutions, start=1)
    ]
    return [
        solution_row(task, calls, task_set=task_set, solution=name, role=role)
        for name, calls in solutions
        if calls
    ]
