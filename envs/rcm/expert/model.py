"""An expert case: a world, a denied claim, an outcome spec, gold trajectories and wrong moves.

Expert cases are written by hand, as data (`cases/*.json`), independently of the generator and of
the reference specialist: each one says which rule of the domain brief it exercises, what a
correct final world looks like (an `OutcomeSpec`), one trajectory per acceptable resolution, and at
least one plausible wrong move with why it is wrong. `ExpertCase.task()` turns one into a `Task`
scored by `rcm.v2` like any other.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import Field

from adapters.rcm import World, seed_world
from envs.rcm.domain import DOMAIN, ESCALATE
from envs.rcm.expert.patches import Patch, apply_patches
from envs.rcm.faults import FAULTS_KEY, Fault
from envs.rcm.tasks import OUTCOME_PATHS, work_item_for
from envs.verifiers.evidence import PARAM as DECIDING
from envs.verifiers.evidence import VISIBLE_TAG, DecidingFact
from schemas.base import Contract
from schemas.tasks import CallConstraint, OutcomeSpec, Provenance, Task, VerifierSpec
from schemas.tools import ToolCall

GENERATOR = "rcm.expert.v1"
VERIFIER = "rcm.v2"
CASE_ID = r"^x\d{2}-[a-z0-9]+(-[a-z0-9]+)*$"


class Citation(Contract):
    """The rule of the domain brief (`shared/domains/rcm.md`) a case exercises."""

    section: str = Field(min_length=1)
    """The brief's section (or table row) the rule is in."""
    rule: str = Field(min_length=1)
    """The rule, in the brief's words."""
    source: str = ""
    """A public source for the rule (a regulation, a manual, the X12 guide), where the case names one."""


class CaseWorld(Contract):
    """The case's initial world: a base world plus patches, and a scripted live-system fault plan."""

    base: str = "seed"
    """The world the patches apply to; `seed` is `adapters.rcm.seed_world()` (today 2025-06-16)."""
    patches: tuple[Patch, ...] = ()
    """Edits applied in order (see `envs.rcm.expert.patches`)."""
    faults: tuple[Fault, ...] = ()
    """Timeouts and 5xx the live system answers with, keyed by call count (`envs.rcm.faults`)."""


class CaseCall(Contract):
    """One tool call of a hand-written trajectory."""

    name: str = Field(min_length=1)
    """Tool name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Arguments as the agent would send them."""


class Trajectory(Contract):
    """A named, explained sequence of calls: a gold resolution or a wrong move."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9_.:-]+$")
    """Short name, e.g. `appeal` or `write_off_whole_charge`."""
    why: str = Field(min_length=1)
    """Why it is right (a gold) or wrong (a wrong move), as a billing specialist would say it."""
    calls: tuple[CaseCall, ...] = Field(min_length=1)
    """The calls, in order."""

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls as `ToolCall`s with stable ids (`<name>-<n>`)."""
        return tuple(
            ToolCall(call_id=f"{self.name}-{n}", name=c.name, arguments=dict(c.arguments))
            for n, c in enumerate(self.calls, 1)
        )


class ExpertCase(Contract):
    """One hand-written denial case of the expert set."""

    id: str = Field(pattern=CASE_ID)
    """Case id, also the file's name, e.g. `x01-co16-n290-npi`."""
    title: str = Field(min_length=1)
    """One line: the denial and the twist."""
    family: tuple[str, ...] = Field(min_length=1)
    """Task-family tags, e.g. `carc:16` and `edge:multi_carc`."""
    rule: Citation
    """The rule of the domain brief the case exercises."""
    world: CaseWorld = Field(default_factory=CaseWorld)
    """The initial world."""
    claim_id: str = Field(min_length=1)
    """The claim the work item hands the agent."""
    spec: OutcomeSpec
    """What every correct final world shows (and never shows)."""
    forbidden_calls: tuple[CallConstraint, ...] = ()
    """Calls no correct handling attempts, even when the system would refuse them."""
    golds: tuple[Trajectory, ...] = Field(min_length=1)
    """One trajectory per acceptable resolution; the first is the task's gold solution."""
    wrong_moves: tuple[Trajectory, ...] = Field(min_length=1)
    """Plausible but wrong handlings, each below 1.0."""
    deciding_facts: tuple[DecidingFact, ...] = ()
    """The reads that make the resolution right, each made before the writes it decides."""
    visible: str | None = None
    """Why the visible facts (work item, 835, claim) legitimately decide the case, when they do."""

    @cached_property
    def world_snapshot(self) -> dict[str, Any]:
        """The patched world as JSON, validated as a `World` (a typo in a patch fails here)."""
        if self.world.base != "seed":
            raise ValueError(f"case {self.id}: unknown base world {self.world.base!r}")
        patched = apply_patches(seed_world().snapshot(), self.world.patches)
        return World.from_snapshot(patched).snapshot()

    @property
    def must_escalate(self) -> bool | None:
        """True when every gold escalates, False when none does, None when escalating is one
        acceptable resolution among others (then the spec alone decides)."""
        escalates = {any(c.name == ESCALATE for c in g.calls) for g in self.golds}
        return None if len(escalates) > 1 else escalates.pop()

    def task(self) -> Task:
        """The case as a task: `rcm.v2` with the spec, the first gold as gold, the others as alternatives."""
        world = World.from_snapshot(self.world_snapshot)
        initial = world.snapshot()
        if self.world.faults:
            initial[FAULTS_KEY] = {"plan": [f.model_dump() for f in self.world.faults], "calls": {}}
        golds = [gold.tool_calls() for gold in self.golds]
        return Task(
            task_id=f"rcm-expert-{self.id}",
            domain="rcm",
            work_item=work_item_for(world, self.claim_id),
            initial_world=initial,
            tools=tuple(spec.name for spec in DOMAIN.tool_specs()),
            gold_solution=golds[0],
            alternative_solutions=tuple(golds[1:]),
            verifier=VerifierSpec(
                verifier=VERIFIER,
                outcome_paths=OUTCOME_PATHS,
                forbidden_calls=self.forbidden_calls,
                must_escalate=self.must_escalate,
                outcome=self.spec,
                params={DECIDING: [f.model_dump(mode="json") for f in self.deciding_facts]},
            ),
            provenance=Provenance(kind="synthetic", generator=GENERATOR, distribution="expert"),
            tags=(
                f"expert:{self.id}",
                "dist:expert",
                *self.family,
                *((f"{VISIBLE_TAG}{self.visible}",) if self.visible else ()),
            ),
        )
