"""Generic mutation operators produce exactly the mutants they claim."""

from __future__ import annotations

from envs.adversarial.mutants import (
    GENERIC_OPERATORS,
    domain_operators,
    drop_step,
    duplicate_write,
    mutants_of,
    swap_writes,
    write_first,
)
from envs.adversarial.operator import MutationContext
from envs.domain import DOMAINS
from schemas.tasks import Task
from tests.envs.helpers import call

READ = call("get_ticket", "r1", ticket_id="T-1")
REFUND = call("issue_refund", "w1", ticket_id="T-1", amount="10")
CLOSE = call("close_ticket", "w2", ticket_id="T-1", resolution="refunded")
CALLS = (READ, REFUND, CLOSE)


def _ctx(task: Task) -> MutationContext:
    return MutationContext(task=task, writes=frozenset({"issue_refund", "close_ticket", "escalate"}))


def test_drop_step_yields_one_mutant_per_call_each_missing_that_call(refund: Task) -> None:
    mutants = list(drop_step(_ctx(refund), CALLS))
    assert [calls for _, calls in mutants] == [(REFUND, CLOSE), (READ, CLOSE), (READ, REFUND)]
    assert "call 2 (issue_refund)" in mutants[1][0]


def test_duplicate_write_sends_each_write_twice_and_never_a_read(refund: Task) -> None:
    mutants = [calls for _, calls in duplicate_write(_ctx(refund), CALLS)]
    assert [[c.name for c in m] for m in mutants] == [
        ["get_ticket", "issue_refund", "issue_refund", "close_ticket"],
        ["get_ticket", "issue_refund", "close_ticket", "close_ticket"],
    ]
    assert mutants[0][2].call_id != mutants[0][1].call_id


def test_write_first_moves_a_write_before_the_reads(refund: Task) -> None:
    mutants = [calls for _, calls in write_first(_ctx(refund), CALLS)]
    assert mutants[0] == (REFUND, READ, CLOSE) and mutants[1] == (CLOSE, READ, REFUND)


def test_swap_writes_swaps_consecutive_writes_only(refund: Task) -> None:
    assert [calls for _, calls in swap_writes(_ctx(refund), CALLS)] == [(READ, CLOSE, REFUND)]


def test_mutants_are_distinct_and_none_equals_a_gold_trajectory(refund: Task) -> None:
    mutants = mutants_of(refund, DOMAINS.get("toy"), GENERIC_OPERATORS)
    keys = [tuple((c.name, str(c.arguments)) for c in m.calls) for m in mutants]
    assert len(keys) == len(set(keys))
    gold = tuple((c.name, str(c.arguments)) for c in refund.gold_solution)
    assert gold not in keys and mutants


def test_alternative_solutions_are_mutated_too(refund: Task) -> None:
    alternative = (refund.gold_solution[0], refund.gold_solution[2], refund.gold_solution[1])
    task = refund.model_copy(update={"alternative_solutions": (alternative,)})
    sources = {m.source for m in mutants_of(task, DOMAINS.get("toy"), GENERIC_OPERATORS)}
    assert sources == {"gold", "alternative 1"}


def test_a_domain_without_a_mutants_module_gets_the_generic_operators() -> None:
    assert domain_operators("toy") == GENERIC_OPERATORS
    assert len(domain_operators("rcm")) > len(GENERIC_OPERATORS)
