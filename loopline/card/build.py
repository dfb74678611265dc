"""Build the verifier card: validation, the expert set, mutants, exploits, agreement, outcomes.

Each part comes from the module that owns it (`envs.validate`, `envs.rcm.expert`,
`envs.adversarial`, `envs.verifiers.agreement`, `loopline.verifier_agreement`); this module runs
them on the same task sets and states which bars the admitted verifier misses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from envs.adversarial.battery import exploit_report
from envs.adversarial.mutation import mutation_report
from envs.adversarial.targets import retarget
from envs.contract import Finish
from envs.domain import DOMAINS
from envs.env import ToolEnv, replay
from envs.rcm.expert import ExpertCase, load_expert_cases
from envs.rcm.solver import REFERENCE
from envs.rcm.tasks import VERIFIER, generate_base, generate_edge, generate_queue
from envs.rcm.x12check import remittance_problems
from envs.rollout.policy import History, Policy
from envs.validate import validate_task
from envs.verifiers.agreement import Confusion, agreement_summary
from envs.verifiers.base import VERIFIERS
from loopline.card.model import (
    ExpertMiss,
    ExpertResult,
    PolicyOnExpertSet,
    TaskSetValidation,
    VerifierCard,
)
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict

VERIFIER_NAMES = ("rcm.v1", VERIFIER)
MIN_MUTATION_SCORE = 0.95
Progress = Callable[[str], None]


def build_card(
    *,
    seed: int = 0,
    per_carc: int = 19,
    per_kind: int = 8,
    queues: int = 48,
    workers: int = 1,
    db_url: str | None = None,
    progress: Progress | None = None,
) -> VerifierCard:
    """Run every part of the card on rcm-base, rcm-edge and rcm-queue (sized by `per_carc`,
    `per_kind`, `queues`) and the expert set; `db_url` adds the label store's labels and the
    archive's business outcomes."""
    say = progress or (lambda _: None)
    base, edge, queue = (
        generate_base(seed, per_carc),
        generate_edge(seed, per_kind),
        generate_queue(seed, queues),
    )
    cases = load_expert_cases()
    expert_tasks = [case.task() for case in cases]
    say("validating gold trajectories and remittances")
    sets = (("rcm-base", base), ("rcm-edge", edge), ("rcm-queue", queue))
    validation = [validated(name, tasks) for name, tasks in sets]
    say("scoring the expert set")
    expert = [expert_result(cases, name) for name in VERIFIER_NAMES]
    reference = policy_on_expert_set(cases, REFERENCE)
    everything = [*base, *edge, *queue, *expert_tasks]
    say(f"mutation testing {len(everything)} tasks")
    mutation = mutation_report(everything, VERIFIER_NAMES, seed=seed, workers=workers)
    say(f"running the exploit battery on {len(everything)} tasks")
    exploits = exploit_report(everything, verifiers=VERIFIER_NAMES, seed=seed, workers=workers)
    pairs = {name: expert_pairs(cases, name) for name in VERIFIER_NAMES}
    sources = f"the expert set ({len(pairs[VERIFIER])} labelled trajectories)"
    outcomes = None
    if db_url is not None:
        from loopline.verifier_agreement import archived_agreement, archived_outcomes

        stored = archived_agreement(db_url)
        for summary in stored.verifiers:
            pairs.setdefault(summary.agreement.verifier, []).extend(as_pairs(summary.agreement.confusion))
        sources += f" and the label store ({stored.labels} labels)"
        outcomes = archived_outcomes(db_url)
    agreement = [agreement_summary(name, rows) for name, rows in sorted(pairs.items())]
    card = VerifierCard(
        seed=seed,
        admitted=VERIFIER,
        validation=validation,
        expert=expert,
        reference=reference,
        mutation=mutation,
        exploits=exploits,
        agreement=agreement,
        agreement_sources=sources,
        outcomes=outcomes,
    )
    return card.model_copy(update={"failing": failing_bars(card)})


def validated(name: str, tasks: Sequence[Task]) -> TaskSetValidation:
    problems: list[str] = []
    valid = 0
    for task in tasks:
        found = [*validate_task(task).problems, *remittance_problems(task)]
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


def expert_result(cases: Sequence[ExpertCase], verifier: str) -> ExpertResult:
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


def expert_pairs(cases: Sequence[ExpertCase], verifier: str) -> list[tuple[bool, bool]]:
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


def policy_on_expert_set(cases: Sequence[ExpertCase], policy: Policy) -> PolicyOnExpertSet:
    failed: list[str] = []
    for case in cases:
        task = case.task()
        env = ToolEnv(DOMAINS.get(task.domain))
        observation = env.reset(task)
        while not env.done:
            action = policy.act(
                observation, observation.tools, History(task.task_id, task.work_item, env.turns)
            )
            observation, _ = env.step(action)
            if isinstance(action, Finish):
                break
        verdict = VERIFIERS.get(task.verifier.verifier).score(task, env.trajectory())
        if not verdict.passed:
            first = next(c for c in verdict.checks if not c.passed)
            failed.append(f"{case.id}: {first.name}: {first.explanation}")
    return PolicyOnExpertSet(
        policy=policy.name,
        verifier=VERIFIER,
        cases=len(cases),
        passed=len(cases) - len(failed),
        failed_cases=failed,
    )


def failing_bars(card: VerifierCard) -> list[str]:
    """The bars of issue 11 that the admitted verifier misses, in words."""
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
    for summary in card.exploits.verifiers:
        if summary.verifier == card.admitted and summary.fooled_tasks:
            out.append(
                f"{summary.fooled_tasks} tasks are hackable: an exploit beats doing nothing "
                "with an outcome no gold trajectory reaches"
            )
    for agreed in card.agreement:
        if agreed.agreement.verifier == card.admitted and not agreed.fitness.fit:
            out.append(f"not fit for training: {agreed.fitness.reason}")
    return out


def _miss(case: ExpertCase, name: str, expected: str, verdict: Verdict) -> ExpertMiss:
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
