"""The decision form's resolutions: the reference specialist's kept or replaced, and the reviewer's
own from the domain's moves with amounts and codes, checked in words; and the gates on them (the
workflow's own, run as the preview does) on a real rcm draft."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from adapters.drafting.draft import TaskDraft
from adapters.rcm.records import WriteOffReason
from bridge.api.review_form import FormProblems, Offer, choices, decide, proposed
from envs.domain import promotion
from envs.rcm import generate_base
from loopline.bridge.review_domains import review_domains
from schemas.tasks import VerifierSpec, content_hash
from schemas.tools import ToolCall
from tests.workflows.episodes import record, redactor
from workflows.promotion.candidate import preview, suggested_spec

RCM = review_domains()["rcm"]
Case = tuple[TaskDraft, VerifierSpec, tuple[ToolCall, ...]]
TASK = next(t for t in generate_base(seed=4, per_carc=1) if "carc:50" in t.tags)


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    events = record(TASK, redactor(Path(tmp_path_factory.mktemp("vault"))))
    draft = promotion("rcm").build_draft(events, fingerprint="ab" * 16, rule="escalation", threshold=0.9)
    spec, gold = suggested_spec(draft)
    return draft, spec, gold


def _offer(draft: TaskDraft, spec: VerifierSpec, gold: tuple[ToolCall, ...]) -> Offer:
    tools = frozenset(c.name for c in gold)
    return Offer(
        spec, tools, RCM.write_tools, RCM.escalate_tool, RCM.escalations, gold, RCM, draft.work_item.item_id
    )


WRITE_OFF = {"move": ["post_write_off"], "post_write_off.amount": ["$39.00"],
             "post_write_off.reason_code": ["not_medically_necessary"], "escalation": ["ruled_out"]}  # fmt: skip


def test_the_moves_fields_come_from_the_tools_argument_models() -> None:
    write_off = RCM.move("post_write_off")
    assert write_off is not None and "claim_id" not in [f.name for f in write_off.fields]
    fields = {f.name: f for f in write_off.fields}
    assert fields["amount"].kind == "amount" and fields["note"].required is False
    assert fields["reason_code"].choices == typing.get_args(WriteOffReason)
    appeal = RCM.move("submit_appeal")
    assert (
        appeal is not None and {f.name: f.kind for f in appeal.fields}["attachment_document_ids"] == "choices"
    )


def test_the_suggestion_is_one_resolution_and_rules_out_only_what_the_domain_forbids(case: Case) -> None:
    _, spec, gold = case
    assert spec.outcome is not None
    assert [a.name for a in spec.outcome.must] == ["no_patient_billing_on_co"]
    [reference] = spec.outcome.resolutions
    assert reference.name == "reference:transfer_to_patient_responsibility"
    # No fact rules out a write the reference specialist did not make.
    assert [a for a in reference.assertions if a.max_count == 0] == []
    assert {c.name for c in gold} >= {"transfer_to_patient_responsibility"}


def test_the_reviewer_adds_another_acceptable_resolution_with_its_amount_and_code(case: Case) -> None:
    draft, spec, gold = case
    made = proposed({**WRITE_OFF, "reference": ["keep"]}, _offer(draft, spec, gold))
    assert made.gold is None and made.spec.outcome is not None
    reference, mine = made.spec.outcome.resolutions
    assert spec.outcome is not None and reference == spec.outcome.resolutions[0]
    [posted] = mine.assertions
    assert (mine.name, posted.collection, posted.total) == ("reviewer:post_write_off", "write_offs", 39.0)
    assert posted.where == {
        "new": True,
        "claim_id": draft.work_item.item_id,
        "reason_code": "not_medically_necessary",
    }
    report = preview(draft, made.spec, gold, made.gold).report
    assert report.ok, report.problems


def test_a_wrong_suggestion_is_replaced_and_the_reviewers_calls_become_the_gold(case: Case) -> None:
    draft, spec, gold = case
    made = proposed({**WRITE_OFF, "reference": ["replace"]}, _offer(draft, spec, gold))
    assert made.spec.outcome is not None and [r.name for r in made.spec.outcome.resolutions] == [
        "reviewer:post_write_off"
    ]
    assert made.gold is not None
    reads = [c.name for c in gold if c.name not in RCM.write_tools]
    assert [c.name for c in made.gold.calls] == [*reads, "post_write_off"]
    assert made.gold.calls[-1].arguments == {"claim_id": draft.work_item.item_id, "amount": 39.0,
                                             "reason_code": "not_medically_necessary"}  # fmt: skip
    shown = preview(draft, made.spec, gold, made.gold)
    assert shown.report.ok and shown.report.gold_score == 1.0 and shown.gold_hash
    # The reference specialist's trajectory no longer meets the corrected spec.
    assert not preview(draft, made.spec, gold).report.ok


def test_a_reviewers_resolution_the_judge_rejects_shows_why_in_the_preview(case: Case) -> None:
    draft, spec, gold = case
    form = {"reference": ["replace"], "move": ["escalate_to_human"], "escalate_to_human.queue": ["billing"],
            "escalate_to_human.recommended_action": ["write_off"], "escalation": ["required"],
            "escalate_to_human.reason": ["billing should decide whether to write this off"]}  # fmt: skip
    made = proposed(form, _offer(draft, spec, gold))
    report = preview(draft, made.spec, gold, made.gold).report
    assert not report.ok and any("does not name the claim" in p for p in report.problems)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"post_write_off.amount": ["lots"]}, "'lots' is not an amount"),
        ({"post_write_off.amount": [""]}, "fill in amount in usd to write off"),
        ({"post_write_off.reason_code": ["goodwill"]}, "'goodwill' is not one of contractual"),
        ({"post_write_off.amount": ["-5"]}, "amount: Input should be greater than 0"),
        ({"move": ["pay_the_agent"]}, "'pay_the_agent' is not a move"),
        ({"move": []}, "the reference specialist's resolution is marked wrong"),
        ({"move": ["submit_appeal", "close_claim"], "submit_appeal.basis": ["medical_necessity"],
          "submit_appeal.reason": ["the LMN supports the service"], "close_claim.reason": ["no_action_needed"]},
         "cannot be closed in the same resolution"),
        ({"forbid": ["post_write_off"]}, "post_write_off is part of your resolution"),
    ],
)  # fmt: skip
def test_a_resolution_with_problems_says_each_in_words(
    case: Case,
    fields: dict[str, list[str]],
    problem: str,
) -> None:
    draft, spec, gold = case
    form = {
        **WRITE_OFF,
        "reference": ["replace"],
        "decision": ["approve"],
        "judgement": ["fail"],
        "reason": ["x"],
    }
    with pytest.raises(FormProblems) as raised:
        decide(form | fields, _offer(draft, spec, gold))
    assert any(problem in p for p in raised.value.problems), raised.value.problems


def test_a_hand_off_in_either_resolution_cannot_be_ruled_out(case: Case) -> None:
    draft, spec, gold = case
    form = {"reference": ["keep"], "move": ["escalate_to_human"], "escalate_to_human.queue": ["billing"],
            "escalate_to_human.recommended_action": ["write_off"], "escalation": ["ruled_out"],
            "escalate_to_human.reason": [f"claim {draft.work_item.item_id}: billing decides"]}  # fmt: skip
    with pytest.raises(FormProblems, match="your resolution hands the case to a person"):
        proposed(form, _offer(draft, spec, gold))
    made = proposed(form | {"escalation": ["either"]}, _offer(draft, spec, gold))
    assert made.spec.must_escalate is None


def test_the_form_as_it_first_shows_states_the_suggested_spec_exactly(case: Case) -> None:
    """So the gate preview the page shows first is of what an untouched form approves."""
    draft, spec, gold = case
    shown = choices(spec)
    form = {"reference": ["keep"], "escalation": [shown.escalation], "spec_json": [shown.spec_json]}
    made = proposed(form, _offer(draft, spec, gold))
    assert made.gold is None and content_hash(made.spec.model_dump(mode="json")) == content_hash(
        spec.model_dump(mode="json")
    )
