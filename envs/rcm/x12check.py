"""Remittances of a generated task checked as X12: every 835 in its world must pass pyx12.

The task's remittances are written as one 835 interchange (one transaction per remittance, the
same writer the sandbox serves) and validated against the 005010X221A1 map. pyx12 takes tens of
milliseconds per interchange, so answers are cached by the interchange text: a task validated twice
in one process costs one run.
"""

from __future__ import annotations

import hashlib
from typing import Any

from adapters.rcm.world import World
from adapters.rcm.x12 import validate_835, write_835
from envs.rcm.faults import FAULTS_KEY
from schemas.tasks import Task

_CACHE: dict[str, tuple[str, ...]] = {}


def remittance_text(world: World) -> str | None:
    """Every remittance of `world` as one 835 interchange, oldest first; None when there are none."""
    remittances = sorted(world.remittances.values(), key=lambda r: (r.production_date, r.remittance_id))
    if not remittances:
        return None
    names = {p.payer_id: p.name for p in world.payers.values()}
    return write_835(remittances, names, world.practice, world.today)


def interchange_problems(text: str) -> tuple[str, ...]:
    """pyx12's errors for one interchange (cached by its text)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    found = _CACHE.get(key)
    if found is None:
        found = tuple(validate_835(text))
        _CACHE[key] = found
    return found


def remittance_problems(task: Task) -> list[str]:
    """Why the task's remittances are not valid 835s (empty when they are, or when it is not rcm)."""
    if task.domain != "rcm":
        return []
    doc: dict[str, Any] = {k: v for k, v in task.initial_world.items() if k != FAULTS_KEY}
    try:
        world = World.from_snapshot(doc)
    except ValueError as exc:
        return [f"835: the task's world does not load: {exc}"]
    text = remittance_text(world)
    if text is None:
        return []
    return [f"835 fails pyx12 (005010X221A1): {problem}" for problem in interchange_problems(text)]
