"""Actions abstract into templates whose slots copy values from the conversation, and back."""

from __future__ import annotations

import json

from training.data import LoadedTaskSet, task_rows
from training.structured.observe import observe
from training.structured.templates import abstract, realize, slot_kinds


def test_every_gold_action_round_trips_through_its_template(small_base: LoadedTaskSet) -> None:
    checked = 0
    for task in small_base.tasks:
        row = task_rows(task, task_set=small_base.label, role="primary")[0]
        for i, message in enumerate(row.messages):
            if message["role"] != "assistant":
                continue
            obs = observe(row.messages[:i], row.tools)
            action = abstract(message, obs, row.tools)
            assert action.uncopied == 0, (task.task_id, action.key)
            assert len(slot_kinds(action.template)) == len(action.slots)
            tool, arguments = realize(action.template, [obs.items[s.targets[0]].value for s in action.slots])
            if tool is None:
                assert arguments == message["content"]
            else:
                call = message["tool_calls"][0]["function"]
                assert (tool, arguments) == (call["name"], json.loads(call["arguments"]))
            checked += 1
    assert checked > 60


def test_enums_stay_literal_and_free_text_gets_holes(small_base: LoadedTaskSet) -> None:
    task = next(t for t in small_base.tasks if "carc:B7" in t.tags)
    row = task_rows(task, task_set=small_base.label, role="primary")[0]
    last = len(row.messages) - 2  # the escalation (the tool result follows it)
    action = abstract(row.messages[last], observe(row.messages[:last], row.tools), row.tools)
    fields = dict(action.template["args"]["$obj"])
    assert fields["queue"] == {"$lit": "credentialing"}
    assert fields["claim_id"]["$copy"] == 0
    parts = fields["reason"]["$text"]
    assert "Claim " in parts and any(isinstance(p, dict) and "$hole" in p for p in parts)


def test_a_value_found_nowhere_is_counted_as_uncopied(small_edge: LoadedTaskSet) -> None:
    halves = 0
    for task in small_edge.tasks:
        for row in task_rows(task, task_set=small_edge.label, role="primary"):
            for i, message in enumerate(row.messages):
                if message["role"] == "assistant" and message.get("tool_calls"):
                    halves += abstract(message, observe(row.messages[:i], row.tools), row.tools).uncopied
    assert halves > 0  # a write-off posted in two halves: half a balance is shown nowhere
