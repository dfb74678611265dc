"""Outcome specs: assertions over outcome facts, counted and summed, with reasons in every verdict."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from envs.verifiers.spec import failure, spec_checks
from schemas.tasks import Assertion, OutcomeSpec, Resolution

FACTS: dict[str, list[dict[str, Any]]] = {
    "write_offs": [
        {"claim_id": "C1", "amount": 120.25, "reason_code": "contractual", "new": True},
        {"claim_id": "C1", "amount": 79.75, "reason_code": "contractual", "new": True},
        {"claim_id": "C2", "amount": 10.0, "reason_code": "bundled", "new": False},
    ],
    "escalations": [{"claim_id": "C1", "queue": "coding", "amount": None, "new": True}],
    "claims": [{"claim_id": "C1", "lines": [{"modifiers": ["59", "RT"]}], "new": False}],
}


def assertion(**fields: Any) -> Assertion:
    return Assertion(**{"name": "a", "reason": "why it matters", "collection": "write_offs", **fields})


def test_two_postings_that_sum_to_the_amount_meet_a_total_to_the_cent() -> None:
    posted = assertion(where={"claim_id": "C1", "new": True}, total_of="amount", total=200.00)
    assert failure(posted, FACTS) is None
    short = posted.model_copy(update={"total": 200.01})
    assert "sums to 200.00, wanted 200.01" in (failure(short, FACTS) or "")


def test_a_must_not_assertion_fails_when_the_fact_appears_and_names_the_count() -> None:
    never = assertion(where={"new": True, "reason_code": "contractual"}, min_count=0, max_count=0)
    assert failure(never, FACTS) == "wanted no write_offs where new=True, reason_code='contractual', found 2"
    assert failure(never.model_copy(update={"where": {"new": True, "reason_code": "bundled"}}), FACTS) is None


def test_operators_select_by_set_membership_list_contents_and_bounds() -> None:
    assert (
        failure(assertion(collection="escalations", where={"queue": {"$in": ["billing", "coding"]}}), FACTS)
        is None
    )
    assert (
        failure(assertion(collection="claims", where={"lines.0.modifiers": {"$contains": "59"}}), FACTS)
        is None
    )
    assert failure(assertion(collection="claims", where={"lines.0.modifiers": {"$contains": "XU"}}), FACTS)
    assert failure(assertion(where={"amount": {"$gte": 100}}, max_count=1), FACTS) is None
    assert failure(assertion(where={"amount": {"$lte": 5}}), FACTS)


def test_an_unknown_collection_is_a_failure_not_a_crash() -> None:
    assert failure(assertion(collection="refunds"), FACTS) == "no collection 'refunds' in the outcome facts"


def test_one_acceptable_resolution_is_enough_and_the_verdict_names_it() -> None:
    supervisor = Resolution(
        name="escalate:supervisor",
        reason="the write-off needs approval",
        assertions=(assertion(collection="escalations", where={"queue": "supervisor"}),),
    )
    coding = Resolution(
        name="escalate:coding",
        reason="the fix is not determinable",
        assertions=(assertion(collection="escalations", where={"queue": "coding"}),),
    )
    [check] = spec_checks(OutcomeSpec(resolutions=(supervisor, coding)), FACTS)
    assert check.passed and check.name == "outcome.resolution" and "escalate:coding" in check.explanation
    [check] = spec_checks(OutcomeSpec(resolutions=(supervisor,)), FACTS)
    assert not check.passed and "escalate:supervisor" in check.explanation


def test_every_must_assertion_is_its_own_named_check_with_its_reason() -> None:
    spec = OutcomeSpec(
        must=(assertion(name="posted"), assertion(name="nothing_else", collection="claims", max_count=0))
    )
    checks = spec_checks(spec, FACTS)
    assert [(c.name, c.passed) for c in checks] == [("outcome.posted", True), ("outcome.nothing_else", False)]
    assert all(c.explanation.startswith("why it matters: ") for c in checks)


@given(st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=6))
def test_a_total_holds_exactly_when_the_cents_add_up(cents: list[int]) -> None:
    facts = {"write_offs": [{"amount": c / 100} for c in cents]}
    want = sum(cents) / 100
    assert failure(assertion(total_of="amount", total=want), facts) is None
    assert failure(assertion(total_of="amount", total=want + 0.01), facts) is not None
