"""Built-in task sets (generated on demand from a seed) and scripted policies, by name.

Domain modules register theirs on import; lookups import every built-in domain first, so the CLI
can offer `rcm-base` or `--policy always_appeal` without knowing which module defines them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from envs.domain import BUILTIN_DOMAINS
from envs.rollout.policy import Policy
from envs.tasksets import TaskSetError, TaskSetRegistry, parse_jsonl
from schemas.tasks import Task

TaskSetFactory = Callable[[int], list[Task]]
"""seed → tasks; the same seed gives the same tasks."""


@dataclass(frozen=True)
class PolicyEntry:
    """A named scripted policy of a domain."""

    domain: str
    name: str
    policy: Policy
    description: str


_TASK_SETS: dict[str, tuple[TaskSetFactory, str]] = {}
_POLICIES: dict[tuple[str, str], PolicyEntry] = {}


def register_task_set(name: str, factory: TaskSetFactory, description: str) -> None:
    """Offer a generated task set under `name` (e.g. `rcm-base`)."""
    _TASK_SETS[name] = (factory, description)


def register_policy(domain: str, name: str, policy: Policy, description: str) -> None:
    """Offer a scripted policy of `domain` under `name` (e.g. `always_appeal`)."""
    _POLICIES[(domain, name)] = PolicyEntry(domain, name, policy, description)


def _load_builtins(domain: str | None = None) -> None:
    # Task-set names start with their domain (`rcm-base`); import just that domain when known.
    for name, module in BUILTIN_DOMAINS.items():
        if domain is None or name == domain:
            importlib.import_module(module)


def task_set_names() -> dict[str, str]:
    """Built-in task set → description."""
    _load_builtins()
    return {name: desc for name, (_, desc) in sorted(_TASK_SETS.items())}


def generate(name: str, seed: int) -> list[Task]:
    """The built-in task set `name` for `seed`."""
    _load_builtins(name.split("-", 1)[0])
    if name not in _TASK_SETS:
        raise KeyError(f"no built-in task set {name!r}; known: {', '.join(sorted(_TASK_SETS))}")
    return _TASK_SETS[name][0](seed)


def policies(domain: str) -> dict[str, PolicyEntry]:
    """The scripted policies of `domain`, by name."""
    _load_builtins(domain)
    return {name: entry for (dom, name), entry in sorted(_POLICIES.items()) if dom == domain}


def policy(domain: str, name: str) -> Policy:
    """One scripted policy."""
    known = policies(domain)
    if name not in known:
        raise KeyError(f"domain {domain!r} has no policy {name!r}; known: {', '.join(known) or '(none)'}")
    return known[name].policy


def resolve(spec: str, *, root: str | Path, seed: int) -> tuple[str, list[Task]]:
    """Tasks named by `spec`: a `.jsonl` file, `name@version` or `name` in the registry at `root`,
    or a built-in task set generated from `seed`. Returns a label for reports and the tasks."""
    path = Path(spec)
    if spec.endswith(".jsonl"):
        if not path.is_file():
            raise TaskSetError(f"no file {spec}")
        return spec, parse_jsonl(path.read_text(), source=spec)
    registry = TaskSetRegistry(root)
    name, _, version = spec.partition("@")
    if version:
        loaded = registry.load(name, int(version))
        return f"{name}@{loaded.manifest.version}", list(loaded.tasks)
    if registry.versions(name):
        loaded = registry.load(name)
        return f"{name}@{loaded.manifest.version}", list(loaded.tasks)
    try:
        return f"{name} (seed {seed})", generate(name, seed)
    except KeyError as exc:
        raise TaskSetError(
            f"{spec!r} is not a .jsonl file, not in {root}, and not built in ({exc.args[0]})"
        ) from None
