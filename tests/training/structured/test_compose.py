"""The compositional action space builds every well-formed gold call, grounding what the
conversation supplies and spelling only what it does not; ill-formed calls are refused."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from training.data import ChatRow, LoadedTaskSet, task_rows
from training.structured.compose import derivable, express, free_texts, lexicon
from training.structured.observe import observe
from training.structured.templates import abstract


def _rows(task_set: LoadedTaskSet) -> list[ChatRow]:
    return [
        row for task in task_set.tasks for row in task_rows(task, task_set=task_set.label, role="primary")
    ]


def _turns(rows: list[ChatRow]) -> list[tuple[ChatRow, int]]:
    return [(row, i) for row in rows for i, m in enumerate(row.messages) if m["role"] == "assistant"]


def test_every_gold_call_of_base_and_edge_is_expressible_and_base_ones_are_grounded(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet
) -> None:
    base = _rows(small_base)
    words = lexicon(text for row in base for text in free_texts(row.messages, row.tools))
    for rows, grounded_all in ((base, True), (_rows(small_edge), False)):
        for row, i in _turns(rows):
            found = express(row.messages[i], observe(row.messages[:i], row.tools), row.tools, words)
            assert found.ok, (row.meta.task_id, found.error)
            if grounded_all:
                assert found.grounded, (row.meta.task_id, found.spelled)


def test_a_write_off_in_halves_is_derived_where_the_templates_cannot_write_it(
    small_edge: LoadedTaskSet,
) -> None:
    derived = 0
    for row, i in _turns(_rows(small_edge)):
        obs = observe(row.messages[:i], row.tools)
        if abstract(row.messages[i], obs, row.tools).uncopied:
            found = express(row.messages[i], obs, row.tools, frozenset())
            assert found.ok
            derived += found.kinds.count("derived")
    assert derived > 0


def test_modifier_and_place_of_service_are_copied_from_a_field_name_and_the_tools_text(
    small_edge: LoadedTaskSet,
) -> None:
    task = next(t for t in small_edge.tasks if "edge:rule_change_telehealth" in t.tags)
    row = task_rows(task, task_set=small_edge.label, role="primary")[0]
    i = next(
        i
        for i, m in enumerate(row.messages)
        if m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] == "submit_replacement_claim"
    )
    call = json.loads(row.messages[i]["tool_calls"][0]["function"]["arguments"])
    assert call["corrections"]["lines"][0]["modifiers"] == ["95"]
    found = express(row.messages[i], observe(row.messages[:i], row.tools), row.tools, frozenset())
    assert found.ok and not [s for s in found.spelled if "corrections" in s]


def _with_arguments(row: ChatRow, i: int, change: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    message = dict(row.messages[i])
    call = dict(message["tool_calls"][0])
    function = dict(call["function"])
    function["arguments"] = json.dumps({**json.loads(function["arguments"]), **change})
    if name is not None:
        function["name"] = name
    call["function"] = function
    message["tool_calls"] = [call]
    return message


def test_a_value_shown_nowhere_is_spelled_and_an_ill_formed_call_is_refused(
    small_base: LoadedTaskSet,
) -> None:
    task = next(t for t in small_base.tasks if "carc:B7" in t.tags)
    row = task_rows(task, task_set=small_base.label, role="primary")[0]
    i = len(row.messages) - 2  # the escalation
    obs = observe(row.messages[:i], row.tools)
    words = lexicon(free_texts(row.messages, row.tools))
    assert express(row.messages[i], obs, row.tools, words).grounded
    spelled = express(_with_arguments(row, i, {"claim_id": "CLM-00000000"}), obs, row.tools, words)
    assert spelled.ok and not spelled.grounded and spelled.spelled == (".claim_id: CLM-00000000",)
    assert not express(_with_arguments(row, i, {"queue": "nowhere"}), obs, row.tools, words).ok
    assert not express(_with_arguments(row, i, {"colour": "red"}), obs, row.tools, words).ok
    assert not express(_with_arguments(row, i, {}, name="delete_everything"), obs, row.tools, words).ok


def test_derived_numbers_are_expressions_of_at_most_three_copied_ones() -> None:
    numbers = np.array(sorted({2.0, 3.0, 4.0, 10.0, 100.0}))
    assert derivable(7.0, numbers)  # 3 + 4
    assert derivable(20.0, numbers)  # (2 + 3) * 4
    assert derivable(3.33, numbers)  # 10 / 3, rounded as written
    assert derivable(25.0, numbers)  # 100 / 4
    assert not derivable(12345.67, numbers)
    assert not derivable(1234.5, numbers)  # 4 operands at least
