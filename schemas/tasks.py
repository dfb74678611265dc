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


class Assertion(Contract):
    """One named fact the final world must (or must not) show, as data.

    It selects the records of one collection of the domain's outcome facts (`Domain.outcome_facts`)
    that match `where`, then checks how many there are and, optionally, what a numeric field of
    theirs sums to. "Must not have happened" is `max_count=0`; "posted $X, in one adjustment or
    several" is `min_count=1` with `total_of`/`total`.
    """

    name: str = Field(min_length=1, max_length=128, pattern=r"^[a-z0-9_.:-]+$")
    """Stable name, shown as `outcome.<name>` in verdicts."""
    reason: str = Field(min_length=1)
    """Why the fact matters, in words a domain expert recognises."""
    collection: str = Field(min_length=1)
    """The collection of outcome facts the assertion reads, e.g. `write_offs` or `claims`."""
    where: dict[str, Any] = Field(default_factory=dict)
    """Dotted field path → value, or an operator object (`$in`, `$ne`, `$exists`, `$contains`,
    `$gte`, `$lte`); a record matches when every entry holds."""
    min_count: int = Field(default=1, ge=0)
    """At least this many records must match."""
    max_count: int | None = Field(default=None, ge=0)
    """At most this many may match; None means no upper bound."""
    total_of: str | None = None
    """A numeric field summed over the matching records."""
    total: float | None = None
    """What `total_of` must sum to."""
    tolerance: float = Field(default=0.005, ge=0.0)
    """How far the sum may be from `total`; half a cent by default, so sums of cents must match."""


class Resolution(Contract):
    """One acceptable way to resolve the work item: every assertion of it must hold."""

    name: str = Field(min_length=1, max_length=128, pattern=r"^[a-z0-9_.:-]+$")
    """Short name, e.g. `appeal` or `escalate:coding`."""
    reason: str = Field(min_length=1)
    """Why this resolution is right for the case."""
    assertions: tuple[Assertion, ...] = Field(min_length=1)
    """The facts this resolution leaves in the world."""


class OutcomeSpec(Contract):
    """A task's gold: assertions over the final world instead of one trajectory's end state.

    Every assertion of `must` holds in any correct final world; when `resolutions` is not empty, at
    least one of them holds entirely. Gold trajectories only prove the spec can be met.
    """

    must: tuple[Assertion, ...] = ()
    """Facts every correct resolution leaves (or never leaves)."""
    resolutions: tuple[Resolution, ...] = ()
    """The acceptable resolutions; one must hold. Empty: `must` alone decides."""


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
    must_escalate: bool | None = False
    """Whether the correct handling includes escalating to a human; None when escalating is one
    acceptable resolution among others (the outcome spec decides, no process check)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Verifier-specific parameters."""
    outcome: OutcomeSpec | None = None
    """The outcome spec (`rcm.v2` and later); None for verifiers that compare against the gold's
    final world."""


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
    alternative_solutions: tuple[tuple[ToolCall, ...], ...] = ()
    """Further gold trajectories, each another acceptable resolution; each replays to 1.0 too."""
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
