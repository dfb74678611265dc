"""The compositional decoder: gold calls rebuild from their schema decisions, a tiny model learns
its families through the environment, loads back from its folder, and calls only offered tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.data import ChatRow, LoadedTaskSet, task_rows
from training.evaluate import run_suite
from training.loop import LoopConfig
from training.policies import load_policy
from training.structured.calls import FINAL, Choice, build, targets
from training.structured.composed import save_composed
from training.structured.composed_policy import ComposedPolicy, FittedComposed, fit_composed
from training.structured.observe import observe


def _rebuilt(row: ChatRow, i: int) -> bool | None:
    obs = observe(row.messages[:i], row.tools)
    call = targets(row.messages[i], obs, row.tools)
    if call is None:
        return None
    nodes = iter(call.nodes)

    def replay(path: str, position: int, allowed: tuple[int, ...], holes: object) -> Choice:
        node = next(nodes)
        assert (node.path, node.position, node.allowed) == (path, position, allowed)
        return Choice(node.mode, node.choice, tuple(s.targets[0] for s in node.slots))

    built = build(call.tool, row.tools, obs.items, replay)
    message = row.messages[i]
    if call.tool == FINAL:
        return bool(built == message["content"])
    return bool(built == json.loads(message["tool_calls"][0]["function"]["arguments"]))


def test_gold_calls_rebuild_from_their_decisions(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet
) -> None:
    outcomes: list[bool | None] = []
    for task_set in (small_base, small_edge):
        for task in task_set.tasks:
            for row in task_rows(task, task_set=task_set.label, role="primary"):
                outcomes += [_rebuilt(row, i) for i, m in enumerate(row.messages) if m["role"] == "assistant"]
    assert False not in outcomes
    assert outcomes.count(True) > 0.9 * len(outcomes)  # the rest need a value no node can produce


@pytest.fixture(scope="module")
def tiny_composed(tiny_rows: list[ChatRow]) -> FittedComposed:
    return fit_composed(
        tiny_rows,
        d_model=32,
        layers=1,
        heads=2,
        loop=LoopConfig(epochs=60, batch_size=8, lr=5e-3, warmup=0.05),
    )


def test_a_tiny_compositional_model_passes_what_it_learned_and_loads_back(
    tiny_composed: FittedComposed, small_base: LoadedTaskSet, tiny_families: tuple[str, ...], tmp_path: Path
) -> None:
    tasks = [t for t in small_base.tasks if any(f in t.tags for f in tiny_families)]
    policy = ComposedPolicy(tiny_composed.model, tiny_composed.vocab, tiny_composed.composed)
    run = run_suite(policy, "tiny", tasks, [0])
    assert [t.passed for t in run.trials] == [True] * len(tasks)
    save_composed(
        tmp_path, tiny_composed.model, tiny_composed.vocab, tiny_composed.composed, {"name": "tiny"}
    )
    loaded = load_policy(tmp_path)
    assert [t.passed for t in run_suite(loaded, "tiny", tasks, [0]).trials] == [True] * len(tasks)


def test_only_offered_tools_are_called(tiny_composed: FittedComposed, tiny_rows: list[ChatRow]) -> None:
    policy = ComposedPolicy(tiny_composed.model, tiny_composed.vocab, tiny_composed.composed)
    row = next(r for r in tiny_rows if r.meta.family == "carc:B7")
    i = max(i for i, m in enumerate(row.messages) if m.get("tool_calls"))
    wanted = row.messages[i]["tool_calls"][0]["function"]["name"]
    assert policy.complete(row.messages[:i], row.tools).tool_calls[0].name == wanted
    fewer = [t for t in row.tools if t["function"]["name"] != wanted]
    reply = policy.complete(row.messages[:i], fewer)
    assert all(call.name != wanted for call in reply.tool_calls)
