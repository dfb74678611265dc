"""A credit edge case seen in production becomes a reviewed, validated task (`envs/credit/promotion.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.credit import generate_edge
from envs.credit.promotion import PROMOTION
from envs.domain import UnknownPromotion, promotion
from envs.validate import validate_task
from loopline.demo.episodes import record, redactor
from schemas import Task
from schemas.events import ToolCalled, ToolFailed, ToolReturned
from schemas.tools import ToolError
from workflows.promotion.candidate import gates

EDGES = generate_edge(seed=11, per_kind=1)


@pytest.mark.parametrize("source", EDGES, ids=[t.task_id for t in EDGES])
def test_each_credit_edge_family_becomes_a_task_whose_gold_scores_full_reward(
    source: Task, tmp_path: Path
) -> None:
    draft = PROMOTION.build_draft(
        record(source, redactor(tmp_path)), fingerprint="e" * 64, rule="unknown_vocabulary", threshold=0.9
    )
    assert draft.accepted and draft.domain == "credit" and draft.fidelity.share == 1.0
    spec, gold = PROMOTION.suggested_spec(draft)
    task = PROMOTION.candidate_task(draft, spec, gold, reviewer="lee")
    assert spec.verifier == "credit.v1" and spec.outcome == source.verifier.outcome
    validation = validate_task(task)
    assert validation.ok and validation.gold is not None and validation.gold.score == 1.0
    report = gates(task)
    assert report.ok, report.problems
    assert task.provenance.kind == "promoted" and "rule:unknown_vocabulary" in task.tags


def test_a_draft_whose_recorded_write_the_sim_does_not_reproduce_is_refused(tmp_path: Path) -> None:
    events = record(EDGES[0], redactor(tmp_path))
    tampered = []
    for event in events:
        data = event.data
        if isinstance(data, ToolReturned) and "escalation" in data.result:
            record_ = {**data.result["escalation"], "memo": "a memo the deal system never stored"}
            event = event.model_copy(
                update={"data": data.model_copy(update={"result": {"escalation": record_}})}
            )
        tampered.append(event)
    draft = PROMOTION.build_draft(tampered, fingerprint="e" * 64, rule="escalation", threshold=0.99)
    assert not draft.accepted and draft.refusal and "below the threshold 0.99" in draft.refusal
    assert [m.tool for m in draft.fidelity.mismatches] == ["escalate_to_committee"]
    assert "memo" in draft.fidelity.mismatches[0].what


def test_promotion_is_looked_up_by_domain_and_an_unknown_one_is_a_clear_error() -> None:
    assert promotion("credit") is PROMOTION and promotion("rcm").name == "rcm"
    with pytest.raises(UnknownPromotion, match="promotes no edge cases"):
        promotion("toy")


def test_a_request_the_live_system_refused_leaves_the_answer_to_follow_and_the_task_asks_for_it(
    tmp_path: Path,
) -> None:
    source = next(
        t for t in generate_edge(seed=5, per_kind=4)
        if "edge:missing_quarter" in t.tags and "class:request_information" not in t.tags
    )  # fmt: skip
    events = record(source, redactor(tmp_path))
    request = next(
        e for e in events if isinstance(e.data, ToolCalled) and e.data.call.name == "request_information"
    )
    assert isinstance(request.data, ToolCalled)
    cut = events[: events.index(request) + 1]
    refused = ToolFailed(
        call_id=request.data.call.call_id, name="request_information",
        error=ToolError(kind="http", status_code=422, message="unprocessable"),
    )  # fmt: skip
    cut.append(request.model_copy(update={"data": refused, "seq": request.seq + 1, "id": "refused-1"}))
    draft = PROMOTION.build_draft(cut, fingerprint="r" * 64, rule="tool_failure.live_rejected", threshold=0.9)
    assert draft.accepted and draft.faults[0].status_code == 422
    spec, gold = PROMOTION.suggested_spec(draft)
    assert spec.params["classes"] == ["request_information"]
    task = PROMOTION.candidate_task(draft, spec, gold)
    validation = validate_task(task)
    assert validation.ok and validation.gold is not None and validation.gold.score == 1.0
