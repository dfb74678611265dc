"""Build the verifier card: validation, the expert set, mutants, exploits, agreement, outcomes.

Each part comes from the module that owns it (`envs.validate`, the domain's descriptor,
`envs.adversarial`, `envs.verifiers.agreement`, `loopline.card.agreement`); this module runs
them on the same task sets and states which bars the admitted verifier misses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from envs.adversarial.battery import exploit_report
from envs.adversarial.blind import blind_kit, blind_report
from envs.adversarial.mutation import mutation_report
from envs.adversarial.report import ExploitReport
from envs.adversarial.targets import retarget
from envs.adversarial.twins import twin_report
from envs.domain import DOMAINS, CardSizes
from envs.env import replay
from envs.rollout import Policy, play
from envs.validate import validate_task
from envs.verifiers.agreement import Confusion, agreement_summary
from envs.verifiers.base import VERIFIERS
from envs.verifiers.evidence import visible_reason
from loopline.card.expert import ExpertLike
from loopline.card.model import (
    ExpertMiss,
    ExpertResult,
    HackableByRule,
    PolicyOnExpertSet,
    TaskSetValidation,
    VerifierCard,
)
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict

MIN_MUTATION_SCORE = 1.0
Progress = Callable[[str], None]


def build_card(
    *,
    domain: str = "rcm",
    seed: int = 0,
    per_carc: int = 19,
    per_kind: int = 8,
    queues: int = 48,
    per_recipe: int = 25,
    workers: int = 1,
    db_url: str | None = None,
    progress: Progress | None = None,
) -> VerifierCard:
    """Run every part of the card on the domain's generated task sets (rcm: rcm-base, rcm-edge and
    rcm-queue sized by `per_carc`, `per_kind`, `queues`; credit: credit-base and credit-edge sized by
    `per_recipe`, `per_kind`) and its expert set; `db_url` adds the label store's labels and the
    archive's business outcomes."""
    say = progress or (lambda _: None)
    described = DOMAINS.get(domain) if domain in DOMAINS.names() else None
    inputs = described.card if described is not None else None
    if described is None or inputs is None:
        known = ", ".join(d.name for d in DOMAINS.all() if d.card is not None)
        raise ValueError(f"no verifier card for domain {domain!r}; known: {known}")
    admitted, names = inputs.admitted, inputs.verifiers
    sets = inputs.generate(
        CardSizes(seed=seed, per_carc=per_carc, per_kind=per_kind, queues=queues, per_recipe=per_recipe)
    )
    cases: Sequence[ExpertLike] = described.expert_cases()
    expert_tasks = [case.task() for case in cases]
    say("validating gold trajectories")
    check = described.task_check
    validation = [
        validated(name, tasks, check.problems if check else lambda task: []) for name, tasks in sets
    ]
    say("scoring the expert set")
    expert = [expert_result(cases, name) for name in names]
    reference = policy_on_expert_set(cases, _reference_policy(domain), admitted)
    everything = [*(task for _, tasks in sets for task in tasks), *expert_tasks]
    say(f"mutation testing {len(everything)} tasks")
    mutation = mutation_report(everything, names, seed=seed, workers=workers)
    say(f"running the exploit battery on {len(everything)} tasks")
    exploits = exploit_report(everything, verifiers=names, seed=seed, workers=workers)
    say(f"running the blind battery on {len(everything)} tasks (fitted on seed {seed + 1})")
    fitting = inputs.generate(
        CardSizes(seed=seed + 1, per_carc=per_carc, per_kind=per_kind, queues=queues, per_recipe=per_recipe)
    )
    blind = blind_report(
        everything, [t for _, ts in fitting for t in ts], admitted, seed=seed, workers=workers
    )
    kit = blind_kit(domain)
    say("replaying the counterfactual twins")
    twins = twin_report(everything, admitted, kit.fixed if kit is not None else (), seed=seed)
    pairs = {name: expert_pairs(cases, name) for name in names}
    sources = f"the expert set ({len(pairs[admitted])} labelled trajectories)"
    outcomes = None
    stored = None
    if db_url is not None:
        from loopline.card.agreement import archived_agreement, archived_outcomes

        stored = archived_agreement(db_url)
        for summary in stored.verifiers:
            pairs.setdefault(summary.agreement.verifier, []).extend(as_pairs(summary.agreement.confusion))
        between = stored.between_reviewers
        kappa = (
            f", kappa between reviewers {between.kappa:.2f}" if between and between.kappa is not None else ""
        )
        sources += (
            f" and the label store ({stored.labels} labels by {len(stored.reviewers)} reviewers{kappa})"
        )
        outcomes = archived_outcomes(db_url)
    agreement = [agreement_summary(name, rows) for name, rows in sorted(pairs.items())]
    card = VerifierCard(
        seed=seed,
        admitted=admitted,
        validation=validation,
        expert=expert,
        reference=reference,
        mutation=mutation,
        exploits=exploits,
        hackable=hackable_by_rule(exploits, everything),
        blind=blind,
        twins=twins,
        agreement=agreement,
        agreement_sources=sources,
        label_store=stored,
        outcomes=outcomes,
    )
    return card.model_copy(update={"failing": failing_bars(card)})


def hackable_by_rule(exploits: ExploitReport, tasks: Sequence[Task]) -> list[HackableByRule]:
    """Per verifier: tasks where an exploit beat doing nothing, those not tagged as decided by the
    visible facts, and the narrower count (a wrong outcome)."""
    tagged = {t.task_id for t in tasks if visible_reason(t) is not None}
    out = []
    for summary in exploits.verifiers:
        won = sorted({w.task_id for w in exploits.wins if w.verifier == summary.verifier})
        out.append(
            HackableByRule(
                verifier=summary.verifier,
                tasks=summary.tasks,
                above_nothing=len(won),
                above_nothing_untagged=[t for t in won if t not in tagged],
                wrong_outcome=summary.fooled_tasks,
            )
        )
    return out


def _reference_policy(domain: str) -> Policy:
    return DOMAINS.get(domain).policies["reference"][0]


def validated(
    name: str, tasks: Sequence[Task], task_problems: Callable[[Task], list[str]] = lambda task: []
) -> TaskSetValidation:
    problems: list[str] = []
    valid = 0
    for task in tasks:
        found = [*validate_task(task).problems, *task_problems(task)]
        valid += not found
        problems += [f"{task.task_id}: {p}" for p in found]
    return TaskSetValidation(
        name=name,
        tasks=len(tasks),
        valid=valid,
        alternatives=sum(len(t.alternative_solutions) for t in tasks),
        problems=problems,
    )


def score(task: Task, calls: tuple[ToolCall, ...], verifier: str) -> Verdict:
    target = retarget(task, verifier)
    trajectory = replay(DOMAINS.get(task.domain), target, calls)
    return VERIFIERS.get(verifier).score(target, trajectory)


def expert_result(cases: Sequence[ExpertLike], verifier: str) -> ExpertResult:
    counts = {"golds": 0, "golds_passed": 0, "alternatives": 0, "alternatives_passed": 0}
    wrong, rejected = 0, 0
    misses: list[ExpertMiss] = []
    for case in cases:
        task = case.task()
        for index, gold in enumerate(case.golds):
            verdict = score(task, gold.tool_calls(), verifier)
            kind = "golds" if index == 0 else "alternatives"
            counts[kind] += 1
            counts[f"{kind}_passed"] += verdict.passed
            if not verdict.passed:
                misses.append(_miss(case, gold.name, "pass", verdict))
        for move in case.wrong_moves:
            verdict = score(task, move.tool_calls(), verifier)
            wrong += 1
            rejected += not verdict.passed
            if verdict.passed:
                misses.append(_miss(case, move.name, "fail", verdict))
    return ExpertResult(
        verifier=verifier, wrong_moves=wrong, wrong_rejected=rejected, misses=misses, **counts
    )


def expert_pairs(cases: Sequence[ExpertLike], verifier: str) -> list[tuple[bool, bool]]:
    """(verifier passed, expert says pass) for every gold (pass) and wrong move (fail) of the set."""
    pairs: list[tuple[bool, bool]] = []
    for case in cases:
        task = case.task()
        pairs += [(score(task, g.tool_calls(), verifier).passed, True) for g in case.golds]
        pairs += [(score(task, w.tool_calls(), verifier).passed, False) for w in case.wrong_moves]
    return pairs


def as_pairs(counts: Confusion) -> list[tuple[bool, bool]]:
    """The (verifier passed, expert pass) pairs behind a confusion table."""
    return (
        [(True, True)] * counts.both_pass
        + [(True, False)] * counts.false_pass
        + [(False, True)] * counts.false_fail
        + [(False, False)] * counts.both_fail
    )


def policy_on_expert_set(
    cases: Sequence[ExpertLike], policy: Policy, admitted: str = "rcm.v2"
) -> PolicyOnExpertSet:
    failed: list[str] = []
    for case in cases:
        task = case.task()
        trajectory = play(task, policy).trajectory
        verdict = VERIFIERS.get(task.verifier.verifier).score(task, trajectory)
        if not verdict.passed:
            first = next(c for c in verdict.checks if not c.passed)
            failed.append(f"{case.id}: {first.name}: {first.explanation}")
    return PolicyOnExpertSet(
        policy=policy.ref.model,
        verifier=admitted,
        cases=len(cases),
        passed=len(cases) - len(failed),
        failed_cases=failed,
    )


def failing_bars(card: VerifierCard) -> list[str]:
    """The bars the admitted verifier misses, in words. The hackable bar is the project's rule: no
    exploit above doing nothing on a task the visible facts do not decide (the tagged tasks are
    listed with their reason); a win with an outcome no gold reaches is named on its own."""
    out: list[str] = []
    for block in card.validation:
        if block.valid < block.tasks:
            out.append(f"{block.name}: {block.tasks - block.valid} of {block.tasks} tasks fail validation")
    for result in card.expert:
        if result.verifier != card.admitted:
            continue
        if result.golds_passed < result.golds or result.alternatives_passed < result.alternatives:
            out.append(f"expert set: {len(result.misses)} trajectories judged against their authors")
        if result.wrong_rejected < result.wrong_moves:
            out.append(f"expert set: {result.wrong_moves - result.wrong_rejected} wrong moves pass")
    for score_ in card.mutation.verifiers:
        value = score_.overall.score
        if score_.verifier == card.admitted and (value is None or value < MIN_MUTATION_SCORE):
            out.append(f"mutation score {value} is below {MIN_MUTATION_SCORE}")
    for rule in card.hackable:
        if rule.verifier != card.admitted:
            continue
        if rule.above_nothing_untagged:
            out.append(
                f"{len(rule.above_nothing_untagged)} tasks are hackable by the rule: an exploit beats doing "
                "nothing on a task the visible facts do not decide"
            )
        if rule.wrong_outcome:
            out.append(
                f"{rule.wrong_outcome} tasks are hackable: an exploit wins with an outcome no gold reaches"
            )
    if card.blind is not None:
        out.extend(card.blind.misses())
    if card.twins is not None:
        out.extend(card.twins.misses())
    for agreed in card.agreement:
        if agreed.agreement.verifier == card.admitted and not agreed.fitness.fit:
            out.append(f"not fit for training: {agreed.fitness.reason}")
    return out


def _miss(case: ExpertLike, name: str, expected: str, verdict: Verdict) -> ExpertMiss:
    return ExpertMiss(
        case=case.id,
        trajectory=name,
        expected=expected,
        score=verdict.score,
        failed_checks=[f"{c.name}: {c.explanation}" for c in verdict.checks if not c.passed],
    )


def write_json(card: VerifierCard, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card.model_dump_json(indent=2) + "\n")
