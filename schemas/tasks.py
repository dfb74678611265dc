"""Environment tasks and immutable, content-hashed task sets."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from schemas.base import PRINTABLE, Contract
from schemas.tools import ToolCall


class WorkItem(Contract):
    """A unit of work as the agent sees it (a denied claim, a credit package)."""

    domain: str
    """Domain name, e.g. `rcm` or `credit`."""
    kind: str
    """Kind of work, e.g. `denial` or `credit_package`."""
    item_id: str = Field(min_length=1, max_length=256, pattern=PRINTABLE)
    """The business system's id for the item (claim id, deal id); the subject of its episode's first
    event."""
    instructions: str
    """What the agent is asked to do, in plain words."""
    payload: dict[str, Any] = Field(default_factory=dict)
    """Structured facts handed to the agent with the item."""


class CallConstraint(Contract):
    """A call that must (or must not) appear, optionally with argument values."""

    tool: str
    """Tool name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Dotted argument path → required value; empty means any arguments."""
    reason: str = ""
    """Why the rule exists, shown when the check fails."""


class VerifierSpec(Contract):
    """What a task's verifier checks."""

    verifier: str
    """Verifier implementation and version, e.g. `rcm.v1`."""
    outcome_paths: tuple[str, ...] = ()
    """Dotted paths into the world state compared against the gold final state; empty = all."""
    required_calls: tuple[CallConstraint, ...] = ()
    """Calls the trajectory must contain."""
    forbidden_calls: tuple[CallConstraint, ...] = ()
    """Calls the trajectory must not contain."""
    must_escalate: bool = False
    """Whether the correct handling includes escalating to a human."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Verifier-specific parameters."""


class Provenance(Contract):
    """Where a task came from."""

    kind: Literal["synthetic", "promoted"]
    """Generated from a distribution, or promoted from a production episode."""
    generator: str | None = None
    """Generator name and version for synthetic tasks."""
    seed: int | None = None
    """Generator seed for synthetic tasks."""
    distribution: str | None = None
    """Which distribution the task was drawn from, e.g. `base` or `edge`."""
    episode_id: str | None = None
    """Source episode for promoted tasks."""
    reviewer: str | None = None
    """Expert who reviewed a promoted task."""


def content_hash(value: Any) -> str:
    """SHA-256 of canonical JSON (sorted keys, no whitespace)."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class Task(Contract):
    """One environment task: work item, initial world, gold solution and how to verify."""

    task_id: str
    """Stable id, unique within a task set."""
    domain: str
    """Domain name."""
    work_item: WorkItem
    """What the agent sees."""
    initial_world: dict[str, Any]
    """Snapshot of the world state the episode starts from."""
    tools: tuple[str, ...]
    """Names of the tools the agent may call."""
    gold_solution: tuple[ToolCall, ...]
    """The expert's calls, which replay to reward 1.0."""
    verifier: VerifierSpec
    """How trajectories are scored."""
    provenance: Provenance
    """Synthetic or promoted, and from where."""
    tags: tuple[str, ...] = ()
    """Free tags, e.g. the CARC category and `near_deadline`."""

    def compute_hash(self) -> str:
        """Content hash over everything that defines the task."""
        return content_hash(self.model_dump(mode="json"))


class TaskSetManifest(Contract):
    """An immutable version of a task set: the ordered task hashes and a hash over them."""

    name: str
    """Task-set name, e.g. `rcm-base`."""
    version: int = Field(ge=1)
    """Monotonic version number; a version never changes once written."""
    created_at: datetime
    """When this version was written."""
    task_ids: tuple[str, ...]
    """Task ids in order."""
    task_hashes: tuple[str, ...]
    """Content hash of each task, aligned with `task_ids`."""
    content_hash: str
    """Hash over the task hashes: equal hashes mean identical task sets."""
    parent_version: int | None = None
    """The version this one was derived from."""
    notes: str = ""
    """What changed."""
