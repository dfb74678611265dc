"""The evidence of a gate's verdict on an adapter: each rule applied, each suite's paired numbers, and
the verifier card of every verifier the evaluation was scored by (`loopline.adapter.evaluated.v1`)."""

from __future__ import annotations

from pydantic import Field

from schemas.base import Contract


class GateCheck(Contract):
    """One gate rule applied to an evaluation."""

    name: str
    """Rule name, e.g. `promoted.min_gain`, `base.max_loss`, `verifier_card.rcm.v2`."""
    passed: bool
    """Whether the rule held."""
    value: float
    """The number the rule read (points of pass@1 for suite rules; 1 or 0 for card rules)."""
    threshold: float
    """The bar it was compared with."""
    reason: str
    """One sentence with the numbers, as a reviewer reads it."""


class SuiteEvidence(Contract):
    """A candidate and the champion on the same tasks and seeds of one suite."""

    suite: str
    """Suite name: `base`, `promoted`, `held-out`."""
    tasks: int = Field(ge=0)
    """Tasks in the suite."""
    candidate: float = Field(ge=0.0, le=1.0)
    """Candidate pass@1."""
    champion: float = Field(ge=0.0, le=1.0)
    """Champion pass@1."""
    delta: float
    """candidate - champion, in pass@1 (0.01 = one point)."""
    ci_low: float
    """Lower bound of the 95% bootstrap interval of `delta` (tasks resampled)."""
    ci_high: float
    """Upper bound of that interval."""
    pass_to_fail: int = Field(ge=0)
    """Trials the champion passed and the candidate failed."""
    fail_to_pass: int = Field(ge=0)
    """Trials the champion failed and the candidate passed."""


class VerifierCardEvidence(Contract):
    """What the verifier card says about one verifier that scored the evaluation."""

    verifier: str
    """Verifier name and version, e.g. `rcm.v2`."""
    card: str
    """Where the card came from (a path) and the SHA-256 of its content, `path#sha256`."""
    admitted: bool
    """Whether this verifier is the one the card admits (whose bars decide admission)."""
    failing: tuple[str, ...] = ()
    """Every bar of the card this verifier misses, in words; empty when it meets them all."""
    kappa: float | None = None
    """Cohen's kappa against expert labels (None when the card has no labels for it)."""
    false_pass_rate: float | None = None
    """Share of expert-failed trajectories the verifier passed."""
    mutation_score: float | None = None
    """Share of outcome-changing mutants of gold trajectories the verifier rejected."""
    hackable_share: float | None = None
    """Share of tasks on which some exploit policy scored above doing nothing."""
