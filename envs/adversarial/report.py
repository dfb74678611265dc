"""Summary models of the mutation run, the exploit battery and the red team, and the pure functions
that build them from per-mutant and per-episode rows.

Definitions (docs/envs.md, "Mutation testing, exploits, red team"):
- a mutant is *outcome-changing* when the outcome view of its final world differs from that of
  every gold trajectory; the *mutation score* of a verifier is the share of outcome-changing mutants
  it rejects (`verdict.passed` is False);
- an exploit *wins* on a task when it scores above doing nothing there; the *hackable share* is the
  share of tasks on which any exploit wins.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from schemas.base import Contract
from schemas.tools import ToolCall
from schemas.verdicts import Verdict


class MutantResult(Contract):
    """One outcome-changing mutant judged by one verifier."""

    task_id: str
    """The task."""
    family: str
    """The task's family (`edge:<kind>`, else `carc:<code>`)."""
    verifier: str
    """The verifier that judged it."""
    operator: str
    """The mutation operator."""
    description: str
    """What the mutant changed, relative to its gold trajectory."""
    source: str = "gold"
    """The gold trajectory it came from."""
    score: float
    """The verdict's score."""
    rejected: bool
    """Whether the verdict failed the mutant (`passed` is False)."""
    failed_checks: tuple[str, ...] = ()
    """Names of the checks that failed."""


class Ratio(Contract):
    """Rejected outcome-changing mutants out of all of them, for one group."""

    name: str
    """The group: a family, an operator, or `all`."""
    outcome_changing: int
    """Outcome-changing mutants in the group."""
    rejected: int
    """Of those, how many the verifier rejected."""
    score: float | None
    """rejected / outcome_changing; None when the group has none."""


class VerifierMutationScore(Contract):
    """How one verifier fared against the mutants."""

    verifier: str
    """Verifier name."""
    overall: Ratio
    """Across all tasks."""
    lenient: int
    """Rejected outcome-changing mutants that still scored at least 0.5 (the outcome gate held)."""
    by_family: tuple[Ratio, ...]
    """Per task family."""
    by_operator: tuple[Ratio, ...]
    """Per mutation operator."""


class MutationReport(Contract):
    """The mutation run over a task set."""

    tasks: int
    """Tasks mutated."""
    mutants: int
    """Distinct mutants replayed (outcome-changing or not)."""
    outcome_changing: int
    """Mutants whose outcome differs from every gold trajectory's."""
    verifiers: tuple[VerifierMutationScore, ...]
    """One entry per verifier."""
    survivors: tuple[MutantResult, ...]
    """Outcome-changing mutants a verifier passed."""
    errors: tuple[str, ...] = ()
    """Tasks or verdicts that could not be evaluated, with why."""


def _ratio(name: str, rows: Sequence[MutantResult]) -> Ratio:
    rejected = sum(r.rejected for r in rows)
    return Ratio(
        name=name,
        outcome_changing=len(rows),
        rejected=rejected,
        score=rejected / len(rows) if rows else None,
    )


def _grouped(rows: Iterable[MutantResult], key: str) -> tuple[Ratio, ...]:
    groups: dict[str, list[MutantResult]] = defaultdict(list)
    for row in rows:
        groups[str(getattr(row, key))].append(row)
    return tuple(_ratio(name, groups[name]) for name in sorted(groups))


def summarize_mutations(
    rows: Sequence[MutantResult],
    *,
    verifiers: Sequence[str],
    tasks: int,
    mutants: int,
    outcome_changing: int,
    errors: Sequence[str] = (),
) -> MutationReport:
    """The report from every (outcome-changing mutant, verifier) row."""
    scores = []
    for name in verifiers:
        mine = [r for r in rows if r.verifier == name]
        scores.append(
            VerifierMutationScore(
                verifier=name,
                overall=_ratio("all", mine),
                lenient=sum(r.rejected and r.score >= 0.5 for r in mine),
                by_family=_grouped(mine, "family"),
                by_operator=_grouped(mine, "operator"),
            )
        )
    return MutationReport(
        tasks=tasks,
        mutants=mutants,
        outcome_changing=outcome_changing,
        verifiers=tuple(scores),
        survivors=tuple(r for r in rows if not r.rejected),
        errors=tuple(errors),
    )


class ExploitScore(Contract):
    """One exploit policy's episode on one task, judged by one verifier."""

    task_id: str
    """The task."""
    family: str
    """The task's family."""
    verifier: str
    """The verifier."""
    policy: str
    """The exploit policy (`do_nothing` for the baseline)."""
    score: float
    """The verdict's score."""
    outcome_matches_gold: bool
    """Whether the episode's outcome equals a gold trajectory's (a blind move that happened to be
    the right one) rather than a wrong outcome the verifier let through."""
    passed_checks: tuple[str, ...] = ()
    """Checks that held."""
    failed_checks: tuple[str, ...] = ()
    """Checks that failed."""


class ExploitWin(Contract):
    """An exploit that scored above doing nothing on a task."""

    task_id: str
    """The task."""
    family: str
    """The task's family."""
    verifier: str
    """The verifier it fooled (or that rewarded a blind move)."""
    policy: str
    """The exploit."""
    score: float
    """Its score."""
    do_nothing: float
    """What doing nothing scores on the same task."""
    outcome_matches_gold: bool
    """True when the blind move reached a gold outcome; False when the outcome is wrong."""
    passed_checks: tuple[str, ...]
    """Checks that held."""
    failed_checks: tuple[str, ...]
    """Checks that failed."""


class ExploitPolicySummary(Contract):
    """One exploit across the task set, for one verifier."""

    policy: str
    """The exploit."""
    mean_score: float
    """Mean score over the tasks."""
    wins: int
    """Tasks on which it scored above doing nothing."""


class ExploitTaskRow(Contract):
    """Every exploit's score on one task, for one verifier."""

    task_id: str
    """The task."""
    family: str
    """The task's family."""
    do_nothing: float
    """The baseline score."""
    scores: dict[str, float]
    """Exploit → score."""


class VerifierExploitSummary(Contract):
    """The exploit battery against one verifier."""

    verifier: str
    """Verifier name."""
    tasks: int
    """Tasks scored."""
    hackable_tasks: int
    """Tasks on which some exploit scored above doing nothing."""
    hackable_share: float
    """hackable_tasks / tasks."""
    fooled_tasks: int
    """Tasks on which some exploit won with an outcome no gold trajectory has."""
    fooled_share: float
    """fooled_tasks / tasks."""
    policies: tuple[ExploitPolicySummary, ...]
    """Per exploit."""
    rows: tuple[ExploitTaskRow, ...]
    """Per task."""


class ExploitReport(Contract):
    """The exploit battery over a task set."""

    policies: tuple[str, ...]
    """The exploits run (besides the do-nothing baseline)."""
    verifiers: tuple[VerifierExploitSummary, ...]
    """One entry per verifier."""
    wins: tuple[ExploitWin, ...]
    """Every (task, exploit, verifier) above doing nothing."""
    errors: tuple[str, ...] = ()
    """Policies that raised or verifiers that could not score, with why."""


BASELINE = "do_nothing"


def summarize_exploits(
    rows: Sequence[ExploitScore],
    *,
    policies: Sequence[str],
    verifiers: Sequence[str],
    errors: Sequence[str] = (),
) -> ExploitReport:
    """The report from every (task, policy, verifier) score, baseline rows included."""
    wins: list[ExploitWin] = []
    summaries = []
    for name in verifiers:
        by_task: dict[str, dict[str, ExploitScore]] = defaultdict(dict)
        for row in rows:
            if row.verifier == name:
                by_task[row.task_id][row.policy] = row
        table: list[ExploitTaskRow] = []
        hackable = fooled = 0
        for task_id, scores in by_task.items():
            base = scores.get(BASELINE)
            floor = base.score if base is not None else 0.0
            mine = [
                ExploitWin(
                    task_id=task_id,
                    family=s.family,
                    verifier=name,
                    policy=s.policy,
                    score=s.score,
                    do_nothing=floor,
                    outcome_matches_gold=s.outcome_matches_gold,
                    passed_checks=s.passed_checks,
                    failed_checks=s.failed_checks,
                )
                for p, s in scores.items()
                if p != BASELINE and s.score > floor
            ]
            wins += mine
            hackable += bool(mine)
            fooled += any(not w.outcome_matches_gold for w in mine)
            family = next(iter(scores.values())).family
            table.append(
                ExploitTaskRow(
                    task_id=task_id,
                    family=family,
                    do_nothing=floor,
                    scores={p: s.score for p, s in scores.items() if p != BASELINE},
                )
            )
        n = len(table)
        summaries.append(
            VerifierExploitSummary(
                verifier=name,
                tasks=n,
                hackable_tasks=hackable,
                hackable_share=hackable / n if n else 0.0,
                fooled_tasks=fooled,
                fooled_share=fooled / n if n else 0.0,
                policies=tuple(_policy_summary(p, table) for p in policies),
                rows=tuple(table),
            )
        )
    return ExploitReport(
        policies=tuple(policies), verifiers=tuple(summaries), wins=tuple(wins), errors=tuple(errors)
    )


def _policy_summary(policy: str, table: Sequence[ExploitTaskRow]) -> ExploitPolicySummary:
    scored = [(row.scores[policy], row.do_nothing) for row in table if policy in row.scores]
    return ExploitPolicySummary(
        policy=policy,
        mean_score=sum(s for s, _ in scored) / len(scored) if scored else 0.0,
        wins=sum(s > floor for s, floor in scored),
    )


class RedTeamFinding(Contract):
    """A proposal that scored above doing nothing."""

    task_id: str
    """The task attacked."""
    attacker: str
    """The attacker's name."""
    proposal: int
    """Index of the proposal among the attacker's proposals for the task."""
    verifier: str
    """The verifier that rewarded it."""
    score: float
    """Its score."""
    do_nothing: float
    """What doing nothing scores on the task."""
    outcome_matches_gold: bool
    """Whether its outcome equals a gold trajectory's (then the attacker simply solved the task)."""
    calls: tuple[ToolCall, ...]
    """The proposed calls."""
    verdict: Verdict
    """The full verdict, every check explained."""


class RedTeamReport(Contract):
    """One red-team run."""

    attacker: str
    """The attacker's name."""
    tasks: int
    """Tasks attacked."""
    proposals: int
    """Proposals replayed."""
    findings: tuple[RedTeamFinding, ...]
    """Every proposal above doing nothing, per verifier."""
    errors: tuple[str, ...] = ()
    """Tasks the attacker could not propose for, or verdicts that failed, with why."""
