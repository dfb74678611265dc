"""A structured model trained on gold works its tasks through the real environment and verifier."""

from __future__ import annotations

import json
from pathlib import Path

from engine.prompt import assistant_message
from envs.rollout.runner import run_rollouts
from training.data import ChatRow, LoadedTaskSet
from training.data.sources import task_family
from training.structured.policy import load_structured_policy
from training.structured.store import load_model, model_hash


def test_a_model_trained_on_gold_passes_those_tasks_through_the_environment(
    tiny_structured: Path, small_base: LoadedTaskSet, tiny_families: tuple[str, ...]
) -> None:
    tasks = [t for t in small_base.tasks if task_family(t) in tiny_families]
    records = run_rollouts(tasks, load_structured_policy(tiny_structured))
    assert [r.verdict.passed for r in records] == [True] * len(tasks), [
        [c.name for c in r.verdict.checks if not c.passed] for r in records
    ]


def test_the_policy_answers_like_a_chat_model_with_one_tool_call(
    tiny_structured: Path, tiny_rows: list[ChatRow]
) -> None:
    policy = load_structured_policy(tiny_structured)
    row = tiny_rows[0]
    reply = policy.complete(row.messages[:2], row.tools)
    (call,) = reply.tool_calls
    assert call.name == "get_remittance" and call.call_id == "call-1"
    assert json.loads(call.arguments_raw) == json.loads(
        row.messages[2]["tool_calls"][0]["function"]["arguments"]
    )
    assert assistant_message(reply)["tool_calls"][0]["type"] == "function"


def test_a_saved_model_loads_with_the_same_hash_and_weights(tiny_structured: Path) -> None:
    stored = load_model(tiny_structured)
    assert stored.model_hash == model_hash(tiny_structured) == stored.manifest["model_hash"]
    assert stored.vocab.templates
