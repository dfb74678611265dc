"""The improvement cycle's inputs and results: one `…Input` and one `…Result` per workflow and
activity, pydantic, converted by Temporal's pydantic data converter. Histories hold paths, ids,
hashes, counts and decisions only; datasets, weights and reports live on disk and in the stores.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.base import Contract
from schemas.gate import VerifierCardEvidence
from training.gate import GateRules


class TaskSource(Contract):
    """Task sets as the training CLI names them, generated once per seed when built in."""

    specs: tuple[str, ...] = ()
    """`NAME[@VERSION]` in the registry, a built-in set, or a `.jsonl` file."""
    seeds: tuple[int, ...] = (0,)
    """Generator seeds of built-in sets."""
    families: tuple[str, ...] = ()
    """Only these task families (empty: all)."""


class Suite(Contract):
    """One evaluation suite: a name the gate's rules refer to, and its tasks."""

    name: str = Field(min_length=1, max_length=64)
    """Suite name (`base`, `promoted`, `held-out`)."""
    tasks: TaskSource
    """Its tasks (never trained on)."""


class CycleSettings(Contract):
    """How one improvement cycle trains, judges and releases."""

    state_dir: str = Field(min_length=1)
    """The training state folder (datasets, models, adapters)."""
    tasksets_root: str = Field(min_length=1)
    """The task-set registry."""
    release_db_url: str = Field(min_length=1)
    """The release store."""
    base_model: str = Field(min_length=1)
    """The base model folder."""
    primary: TaskSource
    """What the adapter learns (the promoted tasks)."""
    replay: TaskSource = Field(default_factory=TaskSource)
    """The replay buffer mixed in so the base is not forgotten."""
    rehearsal: TaskSource = Field(default_factory=TaskSource)
    """Ordinary cases of the families the promoted cases come from, added to the replay buffer
    (other seeds than `replay`'s): the adapter learns each exception beside its family's usual
    moves, so it learns what sets the exception apart instead of moving the whole family."""
    replay_ratio: float = Field(default=0.5, ge=0.0, lt=1.0)
    """Share of replay rows (the replay buffer and the rehearsal together)."""
    suites: tuple[Suite, ...] = ()
    """Evaluation suites, paired against the champion."""
    eval_seeds: tuple[int, ...] = (0,)
    """Environment seeds of every trial."""
    gate_rules: GateRules | None = None
    """The gate's rules; None: the default rules (docs/training.md)."""
    verifier_cards: tuple[VerifierCardEvidence, ...] | None = None
    """The verifier cards the gate's card rule reads (`loopline.card.evidence.card_evidence`);
    None: the rule is skipped and the verdict records no card evidence."""
    corrupt: bool = False
    """Train on deliberately wrong gold (each task's outcome-changing mutant): a bad adapter, to
    prove the gate and the canary stop it."""
    force_gate: bool = False
    """Register the adapter even when the gate stops it (an operator's override, recorded)."""
    epochs: int = Field(default=4, ge=1)
    """Training passes."""
    batch_size: int = Field(default=32, ge=1)
    """Examples per optimizer step."""
    lr: float = Field(default=2e-3, gt=0)
    """Peak learning rate."""
    rank: int = Field(default=16, ge=1)
    """LoRA rank."""
    checkpoint_every: int = Field(default=50, ge=1)
    """Optimizer steps between checkpoints (a retried training resumes from the last one)."""
    canary_share: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Share of live work items the canary serves."""
    decide_every_s: float = Field(default=600.0, gt=0)
    """Seconds between runs of the canary's sequential test."""
    canary_max_s: float = Field(default=7 * 24 * 3600.0, gt=0)
    """Longest canary; an undecided canary is rolled back after it."""
    gpu_queue: str = Field(default="gpu", min_length=1)
    """Task queue of the training activity."""
    train_heartbeat_s: float = Field(default=120.0, gt=0)
    """A training attempt silent this long is retried elsewhere (from its checkpoint)."""


class CycleInput(Contract):
    """One improvement cycle."""

    cycle_id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    """Names the dataset and the adapter (and the served name)."""
    settings: CycleSettings
    """How it runs."""


class CycleResult(Contract):
    """How a cycle ended."""

    adapter_id: str
    """The adapter it trained."""
    gate_passed: bool
    """The gate's verdict."""
    registered: bool
    """Whether it entered the release registry."""
    decision: Literal["promote", "roll_back", "stopped_by_gate"]
    """What became of it."""
    reason: str
    """Why, with the numbers."""


class DatasetResult(Contract):
    """A dataset on disk."""

    folder: str
    """Its folder."""
    rows: int
    """Rows written."""
    content_hash: str
    """SHA-256 of its data."""


class TrainInput(Contract):
    """Train the cycle's adapter on its dataset."""

    cycle: CycleInput
    """The cycle."""
    dataset_folder: str
    """The dataset."""


class TrainResult(Contract):
    """A trained adapter."""

    adapter_folder: str
    """Where it is."""
    steps: int
    """Optimizer steps in all."""
    resumed_from: int
    """The checkpoint's step this attempt started from (0: from the start)."""
    final_loss: float
    """Loss at the end."""


class AdapterStep(Contract):
    """An activity on the cycle's adapter."""

    cycle: CycleInput
    """The cycle."""
    adapter_folder: str
    """The adapter."""


class GateResult(Contract):
    """The gate's verdict, as stored with the adapter."""

    passed: bool
    """Whether it may ship."""
    reasons: tuple[str, ...]
    """Why not, per failed rule."""


class RegisterResult(Contract):
    """The adapter in the release registry."""

    registered: bool
    """False when the gate stopped it and it was not forced."""
    served_name: str | None
    """Its versioned serving name."""


class DecideResult(Contract):
    """One run of the canary's sequential test."""

    decision: Literal["promote", "continue", "roll_back"]
    """What the test decided (and the registry did)."""
    reason: str
    """Why, with the numbers."""
