"""Outcome checks: the final world against the world the gold solution produces.

As in tau2-bench, the gold calls are replayed into a fresh environment (same task, same seed) and
the two final worlds are compared, here field by field over the task's `outcome_paths` so each
difference is a named check a reviewer can read. A path segment `*` matches every key (or index)
present in either world.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Final

from envs.contract import Trajectory
from envs.domain import DOMAINS, DomainRegistry
from envs.env import replay
from schemas.tasks import Task
from schemas.verdicts import CheckResult


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


MISSING: Final = _Missing()
"""Stands for a path that does not exist in a world."""

_CACHE_SIZE = 4096
_cache: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
_cache_lock = threading.Lock()


def gold_world(task: Task, *, seed: int = 0, domains: DomainRegistry = DOMAINS) -> dict[str, Any]:
    """The final world of the gold solution, replayed fresh; cached by task hash and seed."""
    key = (task.compute_hash(), seed)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    world = replay(domains.get(task.domain), task, task.gold_solution, seed=seed).final_world
    with _cache_lock:
        _cache[key] = world
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return world


def get_path(doc: Any, path: Sequence[str]) -> Any:
    """The value at a dotted path (already split), or MISSING."""
    node = doc
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


def expand(path: str, *docs: Any) -> Iterator[tuple[str, ...]]:
    """Concrete paths for a pattern, `*` expanded over the keys present in any of `docs`."""

    def walk(prefix: tuple[str, ...], rest: list[str]) -> Iterator[tuple[str, ...]]:
        if not rest:
            yield prefix
            return
        head, tail = rest[0], rest[1:]
        if head != "*":
            yield from walk((*prefix, head), tail)
            return
        keys: set[str] = set()
        for doc in docs:
            node = get_path(doc, prefix)
            if isinstance(node, dict):
                keys.update(node)
            elif isinstance(node, list):
                keys.update(str(i) for i in range(len(node)))
        for key in sorted(keys, key=lambda k: (len(k), k)):
            yield from walk((*prefix, key), tail)

    yield from walk((), path.split("."))


def leaf_diffs(got: Any, want: Any, prefix: str = "", limit: int = 5) -> list[str]:
    """Up to `limit` leaf-level differences, as `path: got … , gold …` lines."""
    out: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if len(out) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted({*a, *b}):
                walk(a.get(key, MISSING), b.get(key, MISSING), f"{where}.{key}" if where else key)
            return
        out.append(f"{where or '(root)'}: got {a!r}, gold {b!r}")

    walk(got, want, prefix)
    return out


def outcome_checks(
    task: Task, trajectory: Trajectory, *, domains: DomainRegistry = DOMAINS
) -> list[CheckResult]:
    """One check per outcome path (or one for the whole world when the task names none).

    Paths address the domain's `outcome_view` of each world, not the raw world."""
    domain = domains.get(task.domain)
    want_world = domain.outcome_view(gold_world(task, seed=trajectory.seed, domains=domains))
    got_world = domain.outcome_view(trajectory.final_world)
    if not task.verifier.outcome_paths:
        diffs = leaf_diffs(got_world, want_world)
        return [_check("outcome.world", "the final outcome", diffs)]
    checks: list[CheckResult] = []
    for pattern in task.verifier.outcome_paths:
        for path in expand(pattern, got_world, want_world):
            dotted = ".".join(path)
            got, want = get_path(got_world, path), get_path(want_world, path)
            checks.append(_check(f"outcome.{dotted}", dotted, leaf_diffs(got, want, dotted)))
    return checks


def _check(name: str, what: str, diffs: list[str]) -> CheckResult:
    if not diffs:
        return CheckResult(
            name=name, kind="outcome", passed=True, explanation=f"{what} matches the gold solution's result"
        )
    return CheckResult(
        name=name,
        kind="outcome",
        passed=False,
        explanation=f"{what} differs from the gold solution's result: " + "; ".join(diffs),
    )
