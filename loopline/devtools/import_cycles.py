"""Find import cycles among Loopline's own modules.

The module graph is grimp's (import-linter's own), over every top-level package, with the imports
inside functions and under `TYPE_CHECKING` counted: a cycle through either still ties two modules
into one unit. Every strongly connected component of more than one module is a cycle to break.
`make lint` runs this; a test does too.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping

import grimp

from loopline.devtools.check_imports import PACKAGES


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every strongly connected component of `graph` (node → the nodes it points to), each sorted;
    Tarjan's algorithm with an explicit stack, so a deep graph cannot exhaust Python's recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> Iterator[str]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return iter(sorted(graph.get(node, ())))

    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, visit(root))]
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    work.append((target, visit(target)))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    components.append(sorted(component))
    return components


def import_graph(packages: Iterable[str] = PACKAGES) -> grimp.ImportGraph:
    """The import graph of `packages` and nothing outside them (no cache written)."""
    return grimp.build_graph(*packages, cache_dir=None)


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The modules of each import cycle in `graph`."""
    edges = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    return [component for component in strongly_connected(edges) if len(component) > 1]


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> list[str]:
    """One line per import that keeps `cycle` together: where it is and what it says."""
    members = set(cycle)
    lines = []
    for importer in cycle:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(f"  {importer}:{detail['line_number']}: {detail['line_contents']}")
    return lines


def main() -> int:
    graph = import_graph()
    cycles = import_cycles(graph)
    for cycle in cycles:
        print(f"import cycle among {len(cycle)} modules:", file=sys.stderr)
        print("\n".join(describe(graph, cycle)), file=sys.stderr)
    if not cycles:
        print(f"no import cycle among the {len(graph.modules)} modules of {', '.join(PACKAGES)}")
    return 1 if cycles else 0


if __name__ == "__main__":
    raise SystemExit(main())
