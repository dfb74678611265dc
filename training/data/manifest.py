"""A dataset's manifest: what it holds, where it came from, and the hash that names its content."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "openai-chat-tools.v1"
"""JSONL rows of `messages` + `tools` (+ `meta`), OpenAI chat format; see `training.data.rows`."""


class SourceRecord(BaseModel):
    """One task set (or export of production episodes) a dataset drew from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["task_set", "episodes"] = "task_set"
    """A task set's trajectories, or confirmed production episodes (`training.data.production`)."""

    label: str
    """`name@version`, or `name (seed N)` for a generated set."""
    name: str
    """Task-set name."""
    version: int | None = None
    """Registry version (None for a generated set or a file)."""
    seed: int | None = None
    """Generator seed of a built-in set."""
    set_hash: str
    """Hash over the set's task hashes."""
    role: Literal["primary", "replay"]
    """Learned from (`primary`) or kept from forgetting (`replay`)."""
    tasks: int = Field(ge=0)
    """Tasks in the set (episodes in the export, for `episodes`)."""
    rows: int = Field(ge=0)
    """Rows the dataset took from it."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Episodes not taken, by reason (`episodes` only)."""


class DatasetManifest(BaseModel):
    """Written next to `data.jsonl`; `content_hash` is the SHA-256 of that file's bytes."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """Dataset name (its folder)."""
    format: str = FORMAT
    """Row format."""
    content_hash: str
    """SHA-256 of `data.jsonl`: equal datasets have equal hashes, whatever their name."""
    rows: int = Field(ge=0)
    """Rows in the file."""
    seed: int
    """Seed of the replay sample."""
    replay_ratio: float = Field(ge=0.0, lt=1.0)
    """Share of the rows drawn from the replay buffer."""
    corrupted: bool = False
    """True when the gold was deliberately replaced by wrong trajectories (a gate test)."""
    sampling: dict[str, Any] | None = None
    """For rejection sampling: the policy, k, temperature, seeds, rollouts sampled and kept; the
    primary rows are then the kept rollouts, not the gold. None for gold datasets."""
    sources: tuple[SourceRecord, ...]
    """Task sets drawn from."""
    task_set_versions: dict[str, int | None] = Field(default_factory=dict)
    """Task-set name → registry version (None: generated from a seed, see `sources`)."""
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Row counts by `role`, `solution` kind and `family`, plus message counts (`messages`)."""
    phi: dict[str, int | str] = Field(default_factory=dict)
    """How PHI was handled: the surrogate scheme and how many PHI values were replaced."""
    system_prompt_hash: str = ""
    """SHA-256 of the system prompt template the rows were rendered with."""
    code_version: str = "unknown"
    """Commit of the code that built it."""
