"""The pure reducers: what each event changes in the projections, and how changes are staged."""

from __future__ import annotations

from bridge.store.ops import (
    EpisodeClosed,
    EpisodeCounted,
    EpisodeOpened,
    OutcomeRecorded,
    ToolCallClosed,
    ToolCallOpened,
    ToolRateCounted,
    plan,
)
from bridge.store.reducers import reduce_event
from schemas import EpisodeChain, Verdict
from schemas.events import VerifierScored
from schemas.tools import ToolOutcome
from tests.bridge.store.builders import EpisodeBuilder


def test_episode_started_opens_the_episode_with_its_work_item_and_policy() -> None:
    ep = EpisodeBuilder("ep-9", tenant="fund", item_id="DEAL-3")
    (op,) = reduce_event(ep.started(route="canary", adapter_id="lora-2"))
    assert isinstance(op, EpisodeOpened)
    assert (op.episode_id, op.tenant, op.work_item_id, op.work_item_domain) == (
        "ep-9",
        "fund",
        "DEAL-3",
        "rcm",
    )
    assert (op.policy_model, op.policy_adapter_id, op.policy_route) == ("policy-small", "lora-2", "canary")


def test_tool_called_opens_a_call_and_counts_it_for_the_episode_and_the_tool() -> None:
    ep = EpisodeBuilder()
    ep.call("get_claim", {"claim_id": "C-1"})
    ops = reduce_event(ep.events[-1])
    assert EpisodeCounted("ep-1", "acme", tool_calls=1) in ops
    assert ToolRateCounted("get_claim", calls=1) in ops
    (opened,) = [op for op in ops if isinstance(op, ToolCallOpened)]
    assert (opened.call_id, opened.tool, opened.arguments, opened.side_effect) == (
        "call-1",
        "get_claim",
        '{"claim_id":"C-1"}',
        "read",
    )


def test_a_failed_call_counts_as_a_failure_and_an_unknown_one_never_does() -> None:
    ep = EpisodeBuilder()
    failed = reduce_event(ep.failed("c1", "post_payment", status_code=502))
    unknown = reduce_event(
        ep.failed("c2", "post_payment", kind="timeout", status_code=None, outcome=ToolOutcome.UNKNOWN)
    )
    assert ToolRateCounted("post_payment", failures=1) in failed
    assert ToolRateCounted("post_payment", unknown=1) in unknown
    closed = [op for op in (*failed, *unknown) if isinstance(op, ToolCallClosed)]
    assert [(op.outcome, op.error_kind, op.http_status) for op in closed] == [
        ("failed", "http", 502),
        ("unknown", "timeout", None),
    ]


def test_an_outcome_keeps_its_amount_exactly() -> None:
    ep = EpisodeBuilder()
    (op,) = reduce_event(ep.outcome("paid", amount="1234567.891", reason_codes=("CO-45",)))
    assert isinstance(op, OutcomeRecorded)
    assert (op.kind, op.amount, op.reason_codes, op.episode_id) == (
        "paid",
        "1234567.891",
        '["CO-45"]',
        "ep-1",
    )


def test_events_without_projection_effects_reduce_to_nothing() -> None:
    chain = EpisodeChain("task:t1", tenant="acme", source="loopline://test")
    event = chain.append(
        VerifierScored(task_id="t1", verdict=Verdict(verifier="rcm.v1", score=1.0, passed=True))
    )
    assert reduce_event(event) == ()


def test_plan_sums_counters_and_applies_stages_in_the_order_of_an_episode_life() -> None:
    ep = EpisodeBuilder()
    events = [ep.ended("completed"), ep.responded(0), ep.responded(1), ep.started()]
    ops = [op for event in events for op in reduce_event(event)]
    stages = plan(ops)
    assert [kind for kind, _ in stages] == [EpisodeOpened, EpisodeCounted, EpisodeClosed]
    assert stages[1][1] == [EpisodeCounted("ep-1", "acme", steps=2)]


def test_an_interrupted_episode_is_closed_as_interrupted_with_no_duration() -> None:
    from bridge.store.ops import EpisodeClosed
    from schemas.events import EpisodeInterrupted

    ep = EpisodeBuilder()
    ep.started()
    event = ep._add(
        EpisodeInterrupted(reason="cut off", last_seq=0, last_event_type="loopline.episode.started.v1")
    )
    (op,) = reduce_event(event)
    assert isinstance(op, EpisodeClosed) and (op.status, op.duration_ms) == ("interrupted", None)
