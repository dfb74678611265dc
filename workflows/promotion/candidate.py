"""From a draft to a candidate task: the suggested outcome spec, the task itself, and its gates.

The draft's domain (`TaskDraft.domain`) builds the task and suggests its spec from its reference
agent's own resolution (`envs.promotion`, e.g. `envs/rcm/promotion.py`); a reviewer approves the
spec as it is or edits it. The gates, the same for every domain, then decide whether the task may
join a task set (design.md §5): the gold scores 1.0, doing nothing 0, no outcome-changing mutant of
the gold is accepted, and no exploit that reaches a wrong outcome scores above doing nothing.
"""

from __future__ import annotations

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import BlindScore, GatePreview, GateReport, Gold
from envs.adversarial.battery import exploit_task
from envs.adversarial.blind import blind_kit
from envs.adversarial.mutation import mutate_task
from envs.adversarial.report import BASELINE
from envs.adversarial.targets import score_all
from envs.domain import DOMAINS, promotion
from envs.rollout import play
from envs.validate import validate_task
from schemas.tasks import Task, VerifierSpec, content_hash
from schemas.tools import ToolCall


def candidate_task(
    draft: TaskDraft,
    spec: VerifierSpec,
    gold: tuple[ToolCall, ...] = (),
    *,
    reviewer: str | None = None,
) -> Task:
    """The task a draft becomes under `spec`, with `gold` as its gold solution (by its domain)."""
    return promotion(draft.domain).candidate_task(draft, spec, gold, reviewer=reviewer)


def suggested_spec(draft: TaskDraft) -> tuple[VerifierSpec, tuple[ToolCall, ...]]:
    """The draft's domain's reference agent works it; its resolution as a spec, and its calls."""
    return promotion(draft.domain).suggested_spec(draft)


def gates(task: Task) -> GateReport:
    """Gold 1.0, nothing 0, no outcome-changing mutant accepted, no wrong-outcome exploit above
    doing nothing: every problem one line."""
    problems: list[str] = []
    validation = validate_task(task)
    problems += validation.problems
    verifiers = [task.verifier.verifier]
    mutations = mutate_task(task, verifiers=verifiers)
    accepted = tuple(
        f"{r.operator}: {r.description} (scored {r.score:.2f})" for r in mutations.rows if not r.rejected
    )
    problems += [f"mutant accepted: {m}" for m in accepted]
    problems += [f"mutation error: {e}" for e in mutations.errors]
    exploits = exploit_task(task, policies=None, verifiers=verifiers)
    floor = next((r.score for r in exploits.rows if r.policy == BASELINE), 0.0)
    winning = tuple(
        f"{r.policy} scored {r.score:.2f} with a wrong outcome (doing nothing: {floor:.2f})"
        for r in exploits.rows
        if r.policy != BASELINE and not r.outcome_matches_gold and r.score > floor
    )
    problems += [f"exploit wins: {w}" for w in winning]
    problems += [f"exploit error: {e}" for e in exploits.errors]
    return GateReport(
        task_id=task.task_id,
        spec_hash="",
        ok=not problems,
        gold_score=validation.gold.score if validation.gold else None,
        noop_score=validation.noop.score if validation.noop else None,
        mutants=mutations.mutants,
        outcome_changing=mutations.outcome_changing,
        accepted_mutants=accepted,
        exploits=len({r.policy for r in exploits.rows}) - 1,
        winning_exploits=winning,
        problems=tuple(problems),
    )


def blind_scores(task: Task) -> tuple[BlindScore, ...]:
    """The domain's blind desks (`envs.<domain>.blind`) on `task`, scored by its own verifier."""
    kit = blind_kit(task.domain)
    if kit is None:
        return ()
    domain = DOMAINS.get(task.domain)
    verifier = task.verifier.verifier
    desks = [*kit.moves.items(), *((p.ref.model, p) for p in kit.fixed)]
    out = []
    for name, policy in desks:
        verdict = score_all(task, play(task, policy, domain=domain).trajectory, (verifier,))[verifier]
        score, passed = (0.0, False) if isinstance(verdict, str) else (verdict.score, verdict.passed)
        out.append(BlindScore(desk=name, score=score, passed=passed))
    return tuple(out)


def preview(
    draft: TaskDraft, spec: VerifierSpec, gold: tuple[ToolCall, ...], mine: Gold | None = None
) -> GatePreview:
    """The gates an approval of `spec` would run, and the blind desks, without deciding anything;
    `mine` is the reviewer's gold where it replaces the reference specialist's `gold`."""
    spec_hash = content_hash(spec.model_dump(mode="json"))
    task = candidate_task(draft, spec, mine.calls if mine is not None else gold)
    report = gates(task).model_copy(update={"spec_hash": spec_hash})
    gold_hash = content_hash(mine.model_dump(mode="json")) if mine is not None else None
    return GatePreview(spec_hash=spec_hash, gold_hash=gold_hash, report=report, blind=blind_scores(task))
