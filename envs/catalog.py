"""Generated task sets and scripted policies, by name, from the domains' descriptors.

A task-set name starts with its domain (`rcm-base`), so a lookup loads only that domain; the CLI
offers `rcm-base` or `--policy always_appeal` without knowing which module defines them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from envs.domain import DOMAINS, PolicyEntry
from envs.rollout.policy import Policy
from envs.tasksets import TaskSetError, TaskSetRegistry, parse_jsonl
from schemas.tasks import Task


def _task_sets(domain: str | None = None) -> dict[str, tuple[Callable[[int], list[Task]], str]]:
    domains = DOMAINS.all() if domain is None else [DOMAINS.get(domain)]
    return {name: entry for d in domains for name, entry in d.task_sets.items()}


def task_set_names() -> dict[str, str]:
    """Built-in task set → description."""
    return {name: description for name, (_, description) in sorted(_task_sets().items())}


def generate(name: str, seed: int) -> list[Task]:
    """The built-in task set `name` for `seed`."""
    domain = name.split("-", 1)[0]
    known = _task_sets(domain) if domain in DOMAINS.names() else {}
    if name not in known:
        raise KeyError(f"no built-in task set {name!r}; known: {', '.join(sorted(_task_sets()))}")
    return known[name][0](seed)


def policies(domain: str) -> dict[str, PolicyEntry]:
    """The scripted policies of `domain`, by name."""
    found = DOMAINS.get(domain).policies
    return {name: PolicyEntry(domain, name, *found[name]) for name in sorted(found)}


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
