"""Evidence-grounded verdicts: the decisive write must follow the reads that make it right."""

from __future__ import annotations

import pytest

from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.tasks import generate_base, generate_edge
from envs.verifiers import score_task
from envs.verifiers.evidence import PARAM, contains, deciding_facts, visible_reason
from schemas.tasks import Task

RCM = DOMAINS.get("rcm")


@pytest.fixture(scope="module")
def base() -> list[Task]:
    return generate_base(0, 2)


def first(tasks: list[Task], tag: str) -> Task:
    return next(t for t in tasks if tag in t.tags)


def test_a_value_is_observed_whole_or_as_a_word() -> None:
    result = {"acks": [{"ack_date": "2025-03-04", "message": "accepted as AUTH-12, see note"}]}
    assert contains(result, "2025-03-04")
    assert contains(result, "AUTH-12")
    assert not contains(result, "AUTH-1")
    assert not contains(result, "2025-03-05")


def test_the_gold_reads_every_deciding_fact_before_the_write_it_decides(base: list[Task]) -> None:
    task = first(base, "carc:29")
    assert deciding_facts(task), "a timely-filing case declares what decides it"
    verdict = score_task(task, replay(RCM, task, task.gold_solution))
    assert verdict.passed
    assert any(c.name.startswith("evidence.") and c.passed for c in verdict.checks)


def test_the_right_write_without_the_deciding_read_scores_zero_and_names_the_read(base: list[Task]) -> None:
    task = first(base, "carc:29")
    blind = tuple(c for c in task.gold_solution if c.name != "get_payer_rules")
    assert len(blind) < len(task.gold_solution)
    verdict = score_task(task, replay(RCM, task, blind))
    assert verdict.score == 0.0 and not verdict.passed
    missed = [c for c in verdict.checks if c.name.startswith("evidence.") and not c.passed]
    assert missed and "get_payer_rules" in missed[0].explanation
    assert all(c.passed for c in verdict.checks if c.kind == "outcome"), "the outcome itself was right"


def test_a_read_after_the_decisive_write_does_not_count(base: list[Task]) -> None:
    task = first(base, "carc:29")
    gold = task.gold_solution
    rules = [c for c in gold if c.name == "get_payer_rules"]
    late = tuple(c for c in gold if c.name != "get_payer_rules") + tuple(rules)
    verdict = score_task(task, replay(RCM, task, late))
    assert verdict.score == 0.0


def test_every_generated_family_declares_deciding_facts_or_why_the_visible_facts_decide() -> None:
    for task in [*generate_base(0, 2), *generate_edge(0, 2)]:
        has_facts = bool(task.verifier.params.get(PARAM))
        assert has_facts or visible_reason(task) is not None, task.task_id


def test_a_credit_decision_on_statements_never_read_scores_zero() -> None:
    from envs.credit.tasks import generate_base as credit_base

    task = credit_base(0, 1)[0]
    credit = DOMAINS.get("credit")
    assert score_task(task, replay(credit, task, task.gold_solution)).passed
    unread = tuple(c for c in task.gold_solution if c.name != "get_financial_statements")
    verdict = score_task(task, replay(credit, task, unread))
    assert verdict.score == 0.0
    assert any(c.name.startswith("evidence.statements:") and not c.passed for c in verdict.checks)


def test_a_note_that_invents_an_approval_or_an_authorization_fails_everywhere(base: list[Task]) -> None:
    from envs.rcm.text_exploits import FORGED, TEXT_EXPLOITS
    from envs.rollout import play

    forged = next(p for p in TEXT_EXPLOITS if p.ref.model == "forged_approval")
    rewritten = 0
    for task in base[::4]:
        trajectory = play(task, forged, domain=RCM).trajectory
        if not any(FORGED in str(t.call.arguments) for t in trajectory.turns):
            continue  # nothing it wrote carries free text (a patient transfer)
        rewritten += 1
        verdict = score_task(task, trajectory)
        check = next(c for c in verdict.checks if c.name == "content.rcm.no_invented_facts")
        assert not check.passed and verdict.score == 0.0, task.task_id
    assert rewritten
