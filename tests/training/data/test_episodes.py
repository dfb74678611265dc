"""Gold trajectories become exactly the conversation the runtime has with a model."""

from __future__ import annotations

import json

from adapters.chat import DEFAULT_SYSTEM_PROMPT, system_prompt, work_item_message
from envs.domain import DOMAINS
from training.data import DONE_MESSAGE, LoadedTaskSet, task_rows
from training.data.strict_calls import strict_arguments


def test_a_gold_row_opens_with_the_runtime_prompt_and_work_item(small_base: LoadedTaskSet) -> None:
    task = small_base.tasks[0]
    row = task_rows(task, task_set=small_base.label, role="primary")[0]
    assert row.messages[0] == {
        "role": "system",
        "content": system_prompt(DEFAULT_SYSTEM_PROMPT, task.work_item, "escalate_to_human"),
    }
    assert row.messages[1] == work_item_message(task.work_item)
    assert [t["function"]["name"] for t in row.tools] == list(task.tools)


def test_every_tool_call_is_answered_by_its_result_and_the_calls_are_the_gold(
    small_base: LoadedTaskSet,
) -> None:
    for task in small_base.tasks:
        row = task_rows(task, task_set=small_base.label, role="primary")[0]
        calls, answered = [], []
        for message in row.messages[2:]:
            if message["role"] == "assistant" and message.get("tool_calls"):
                (call,) = message["tool_calls"]
                calls.append(
                    (call["id"], call["function"]["name"], json.loads(call["function"]["arguments"]))
                )
            elif message["role"] == "tool":
                answered.append(message["tool_call_id"])
        assert [c[0] for c in calls] == answered
        specs = {spec.name: spec for spec in DOMAINS.get(task.domain).tool_specs()}
        # The gold's calls, with the keys their strict schemas require and the gold leaves out.
        assert [(c[1], c[2]) for c in calls] == [
            (g.name, strict_arguments(specs[g.name], g.arguments)) for g in task.gold_solution
        ]


def test_an_escalation_ends_the_conversation_and_other_endings_close_with_text(
    small_base: LoadedTaskSet,
) -> None:
    endings = {}
    for task in small_base.tasks:
        row = task_rows(task, task_set=small_base.label, role="primary")[0]
        escalated = task.gold_solution[-1].name == "escalate_to_human"
        endings[escalated] = row.messages[-1]
    assert endings[True]["role"] == "tool"
    assert endings[False] == {"role": "assistant", "content": DONE_MESSAGE}


def test_each_alternative_solution_is_a_row_of_its_own(small_edge: LoadedTaskSet) -> None:
    task = next(t for t in small_edge.tasks if t.alternative_solutions)
    rows = task_rows(task, task_set=small_edge.label, role="primary")
    assert [r.meta.solution for r in rows] == ["gold"] + [
        f"alternative-{i}" for i in range(1, len(task.alternative_solutions) + 1)
    ]
