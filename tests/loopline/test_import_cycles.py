"""No import cycle among our modules; the component search finds every module of a cycle."""

from __future__ import annotations

from loopline.devtools.import_cycles import describe, import_cycles, import_graph, strongly_connected


def test_no_import_cycle_among_our_modules() -> None:
    graph = import_graph()
    cycles = import_cycles(graph)
    assert cycles == [], "\n".join(line for cycle in cycles for line in describe(graph, cycle))


def test_every_module_of_a_cycle_is_in_its_component_and_nothing_else() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["d"], "f": ["a"], "g": []}
    assert sorted(strongly_connected(graph)) == [["a", "b", "c"], ["d", "e"], ["f"], ["g"]]


def test_a_long_chain_and_a_cycle_closed_by_a_module_without_entry_are_searched_without_recursion() -> None:
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(5000)}
    chain["m5000"] = ["m0", "x"]
    assert [c for c in strongly_connected(chain) if len(c) > 1] == [sorted(f"m{i}" for i in range(5001))]
