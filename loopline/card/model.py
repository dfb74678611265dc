"""What the verifier card holds: every number a buyer asks about a verifier, and what failed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from envs.adversarial.blind_report import BlindReport
from envs.adversarial.report import ExploitReport, MutationReport
from envs.adversarial.twins import TwinReport
from envs.verifiers.agreement import AgreementSummary
from loopline.card.agreement import AgreementReport, OutcomeReport


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class TaskSetValidation(Model):
    """Gold replay validation of one task set."""

    name: str
    """Task-set name."""
    tasks: int
    """Tasks validated."""
    valid: int
    """Tasks whose every gold scores 1.0 and doing nothing 0 (remittances valid where checked)."""
    alternatives: int
    """Alternative gold trajectories, each another acceptable resolution."""
    problems: list[str] = Field(default_factory=list)
    """`task: problem` lines, for tasks that failed."""


class ExpertMiss(Model):
    """An expert-set trajectory the verifier judged differently from the case's author."""

    case: str
    """Case id."""
    trajectory: str
    """Trajectory name."""
    expected: str
    """`pass` (a gold) or `fail` (a wrong move)."""
    score: float
    """The verifier's score."""
    failed_checks: list[str] = Field(default_factory=list)
    """`name: explanation` of each failed check."""


class ExpertResult(Model):
    """One verifier on the hand-written expert set."""

    verifier: str
    """Verifier name."""
    golds: int
    """Gold trajectories (first resolutions)."""
    golds_passed: int
    """Of them, scored 1.0."""
    alternatives: int
    """Alternative acceptable resolutions."""
    alternatives_passed: int
    """Of them, scored 1.0."""
    wrong_moves: int
    """Wrong moves."""
    wrong_rejected: int
    """Of them, scored below 1.0."""
    misses: list[ExpertMiss] = Field(default_factory=list)
    """Every disagreement with the cases' authors."""


class PolicyOnExpertSet(Model):
    """A policy (the reference specialist) scored on the expert set like any other."""

    policy: str
    """Policy name."""
    verifier: str
    """Verifier that scored it."""
    cases: int
    """Cases run."""
    passed: int
    """Cases it passed."""
    failed_cases: list[str] = Field(default_factory=list)
    """`case: first failed check` for each case it failed."""


class HackableByRule(Model):
    """The exploit battery against one verifier, counted by the project's rule and by the narrower
    one the card used before."""

    verifier: str
    """Verifier name."""
    tasks: int
    """Tasks scored."""
    above_nothing: int
    """Tasks on which some exploit scored above doing nothing (the rule)."""
    above_nothing_untagged: list[str] = Field(default_factory=list)
    """Those not tagged as decided by the visible facts: the project's rule counts each one."""
    wrong_outcome: int = 0
    """Tasks on which some exploit won with an outcome no gold reaches (the narrower count)."""


class VerifierCard(Model):
    """The verifier card."""

    seed: int
    """Seed of the generated task sets."""
    admitted: str
    """The verifier the generated tasks name, whose bars decide admission."""
    validation: list[TaskSetValidation]
    """Gold replay validation per task set."""
    expert: list[ExpertResult]
    """Each verifier on the expert set."""
    reference: PolicyOnExpertSet | None = None
    """The reference specialist on the expert set."""
    mutation: MutationReport
    """Mutation scores per verifier and family, with survivors."""
    exploits: ExploitReport
    """The exploit battery: hackable share per verifier, every win."""
    hackable: list[HackableByRule] = Field(default_factory=list)
    """The exploit battery by the project's rule (above doing nothing, tagged tasks aside)."""
    blind: BlindReport | None = None
    """The blind-policy battery on the admitted verifier, when the domain offers one."""
    twins: TwinReport | None = None
    """The counterfactual twin sets among the card's tasks, when there are any."""
    agreement: list[AgreementSummary]
    """Agreement with expert labels per verifier (expert-set labels, plus the label store's)."""
    agreement_sources: str
    """Where the labels came from."""
    label_store: AgreementReport | None = None
    """The label store's labels, when an archive was given: who labelled how many trajectories,
    reviewers' kappa with each other, and each verifier against them alone."""
    outcomes: OutcomeReport | None = None
    """Business-outcome correlation from the archive, when one was given."""
    failing: list[str] = Field(default_factory=list)
    """Every bar the admitted verifier misses, in words; empty when it meets them all."""
    open_bars: list[str] = Field(default_factory=list)
    """Rules the card reports without enforcing them, in words; the hackable rule is enforced
    (`failing`), so a card built now leaves this empty and it stays for cards written before."""
