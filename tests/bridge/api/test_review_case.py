"""The review page's pure parts: the case in a specialist's words, and the decision form's checks."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import Environment

from bridge.api import review_page
from bridge.api.auth import Caller, Identity, Role
from bridge.api.review_case import case_facts, codes_in_words, moment, spec_checks
from bridge.api.review_form import FORBIDDEN_REASON, FormProblems, Offer, choices, decide
from bridge.api.review_sessions import ReviewSessions, over_https, same_origin
from loopline.bridge.review_domains import review_domains
from schemas.tasks import Assertion, OutcomeSpec, VerifierSpec

RCM = review_domains()["rcm"]
WORLD: dict[str, Any] = {
    "today": "2025-08-22",
    "payers": {"ACME": {"name": "Acme Health PPO", "rules": {"timely_filing_days": 90, "appeal_window_days": 30, "retro_auth_window_days": 14}}},
    "claims": {"CLM-1": {"claim_id": "CLM-1", "payer_id": "ACME", "payer_sequence": "primary", "status": "denied",
                         "lines": [{"line_number": 1, "procedure_code": "99214", "modifiers": ["25"], "units": 1,
                                    "charge": 1250.0, "place_of_service": "11", "service_date": "2025-06-01"}]}},
    "remittances": {"ERA-1": {"remittance_id": "ERA-1", "claim_id": "CLM-1", "payer_id": "ACME", "claim_status_code": "4",
                              "total_charge": 1250.0, "paid_amount": 0.0, "production_date": "2025-07-01",
                              "lines": [{"line_number": 1, "procedure_code": "99214", "charge": 1250.0, "paid": 0.0,
                                         "adjustments": [{"group_code": "CO", "reason_code": "50", "amount": 1250.0}],
                                         "remark_codes": ["N211"]}]}},
    "documents": {"DOC-1": {"document_id": "DOC-1", "kind": "lmn", "title": "Letter of medical necessity",
                            "document_date": "2025-06-02", "signed": True, "text": "The patient needs this visit."}},
}  # fmt: skip


def test_a_payers_redenial_shows_its_codes_in_words_not_only_its_kind() -> None:
    event = moment(
        7,
        "t",
        "loopline.outcome.observed.v1",
        {"kind": "denied", "reason_codes": ["CO-50", "N211"], "amount": 1250},
        RCM.codes,
    )
    assert event.what == "outcome" and event.problem
    assert "payer codes CO-50 (These are non-covered services" in event.detail and "N211 (" in event.detail
    assert "$1,250.00" in event.detail
    assert codes_in_words(["ZZ-999"], RCM.codes) == "ZZ-999"  # an unknown code is shown, never guessed


def test_a_failed_call_and_what_the_episode_concluded_from_it_are_shown_together() -> None:
    failed = moment(
        3, "t", "loopline.tool.failed.v1",
        {"name": "check_eligibility", "error": {"kind": "http", "status_code": 503, "retryable": True, "message": "payer portal down"}},
        RCM.codes,
    )  # fmt: skip
    assert (
        failed.problem
        and failed.detail == "check_eligibility failed: http (HTTP 503), retryable: payer portal down"
    )
    ended = moment(
        9,
        "t",
        "loopline.episode.ended.v1",
        {"status": "completed", "final_message": "no other coverage: billed the patient"},
        RCM.codes,
    )
    asks = moment(
        2, "t", "loopline.model.responded.v1", {"tool_calls": [{"name": "check_eligibility"}]}, RCM.codes
    )
    facts = case_facts(WORLD, [asks, failed, ended], RCM.codes)
    assert facts.conclusion == [
        "call failed: check_eligibility failed: http (HTTP 503), retryable: payer portal down",
        "episode ended: completed: no other coverage: billed the patient",
    ]


def test_the_remittance_claim_deadlines_and_documents_are_tables_and_text() -> None:
    facts = case_facts(WORLD, [], RCM.codes)
    [era] = facts.remittances
    assert era.summary.rows[0][2] == "4: Denied" and era.summary.rows[0][3] == "$1,250.00"
    [line] = era.lines.rows
    assert (
        line[1] == "99214"
        and line[5].startswith("CO-50 $1,250.00: These are non-covered")
        and line[6].startswith("N211: Alert")
    )
    assert facts.claim_lines.rows == [("CLM-1", "1", "99214 25", "1", "$1,250.00", "11", "2025-06-01")]
    [rules] = facts.rules.rows
    assert rules[2] == "90 days from service: 2025-08-30 (8 days left)"
    assert rules[3] == "30 days from the remittance: 2025-07-31 (passed 22 days ago)"
    [doc] = facts.documents
    assert doc.text == "The patient needs this visit." and "signed" in doc.facts
    assert (
        case_facts({"periods": []}, [], RCM.codes).remittances == []
    )  # another domain's world: no rcm tables


def test_every_value_is_escaped_by_the_templates() -> None:
    html = review_page.login("<script>alert(1)</script>")
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert isinstance(review_page._ENV, Environment) and review_page._ENV.autoescape is True


SUGGESTED = VerifierSpec(
    verifier="rcm.v2",
    outcome=OutcomeSpec(
        must=(Assertion(name="appeal", reason="appeal", collection="appeals", where={"new": True}),)
    ),
    must_escalate=False,
)
OFFERED = RCM.write_tools


def _form(**fields: str | list[str]) -> dict[str, list[str]]:
    return {k: v if isinstance(v, list) else [v] for k, v in fields.items()}


def test_the_spec_is_the_suggestion_with_the_forms_choices() -> None:
    assert choices(SUGGESTED).forbidden == frozenset() and choices(SUGGESTED).escalation == "ruled_out"
    form = _form(decision="approve", judgement="fail", reason="appeal with the LMN", escalation="either",
                 forbid=["post_write_off", "transfer_to_patient_responsibility"])  # fmt: skip
    made = decide(form, Offer(SUGGESTED, frozenset({"submit_appeal"}), OFFERED))
    assert made.action == "approve" and made.judgement == "fail" and made.spec is not None
    assert [(c.tool, c.reason) for c in made.spec.forbidden_calls] == [
        ("post_write_off", FORBIDDEN_REASON), ("transfer_to_patient_responsibility", FORBIDDEN_REASON)
    ]  # fmt: skip
    assert made.spec.must_escalate is None and made.spec.outcome == SUGGESTED.outcome


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"decision": "publish"}, "choose a decision"),
        ({"judgement": "maybe"}, "say whether the episode handled the case right"),
        ({"reason": "  "}, "give a reason"),
        ({"reason": "x" * 4001}, "longer than 4000"),
        ({"forbid": "submit_appeal"}, "submit_appeal is part of the suggested resolution"),
        ({"forbid": "drop_table"}, "'drop_table' is not a tool"),
        ({"escalation": "required"}, "hands nothing to a person"),
        ({"escalation": "sometimes"}, "choose whether the case must be handed"),
        ({"use_json": "on", "spec_json": "{"}, "the spec JSON does not parse"),
        ({"use_json": "on", "spec_json": '{"verifier": 3}'}, "spec JSON, verifier"),
    ],
)
def test_a_form_problem_is_said_in_words(fields: dict[str, str], problem: str) -> None:
    base = {"decision": "approve", "judgement": "pass", "reason": "fine", "escalation": "ruled_out"}
    with pytest.raises(FormProblems) as raised:
        decide(
            _form(**(base | fields)),
            Offer(SUGGESTED, frozenset({"submit_appeal"}), OFFERED, escalate_tool="escalate_to_human"),
        )
    assert any(problem in p for p in raised.value.problems), raised.value.problems


def test_every_problem_is_listed_at_once_and_a_rejection_needs_no_spec() -> None:
    with pytest.raises(FormProblems) as raised:
        decide({}, Offer(None, offered=OFFERED))
    assert len(raised.value.problems) == 3
    made = decide(
        _form(decision="reject", judgement="pass", reason="not a real case"), Offer(None, offered=OFFERED)
    )
    assert made.action == "reject" and made.spec is None


def test_each_domain_offers_its_own_writes_and_hand_off_and_the_bridge_names_none() -> None:
    domains = review_domains()
    credit = domains["credit"]
    assert credit.escalate_tool == "escalate_to_committee" and "escalate_to_committee" in credit.write_tools
    assert "get_remittance" not in RCM.write_tools and "submit_appeal" in RCM.write_tools
    assert dict(RCM.writes)["close_claim"].startswith(
        "Close a claim that needs no further work (e.g. a duplicate"
    )
    assert credit.codes.carc == {} and RCM.codes.carc["50"].startswith("These are non-covered")


def test_a_spec_is_shown_in_words() -> None:
    spec = SUGGESTED.model_copy(
        update={
            "outcome": OutcomeSpec(
                must=(
                    Assertion(name="wo", reason="written off", collection="write_offs", where={"claim_id": "CLM-1"},
                              min_count=1, total_of="amount", total=1250.0),
                    Assertion(name="no_appeal", reason="no appeal", collection="appeals", where={"new": True},
                              min_count=0, max_count=0),
                )
            )
        }
    )  # fmt: skip
    assert spec_checks(spec).rows == [
        ("written off", "write_offs", "claim_id=CLM-1", "at least 1, amount totalling $1,250.00"),
        ("no appeal", "appeals", "new=True", "none"),
        ("a hand-off to a person", "escalations", "", "ruled out"),
    ]
    assert spec_checks(None).rows == []


def test_a_token_name_that_is_not_a_plain_name_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="printable"):
        Identity(Role.REVIEWER, "Dana\x00")
    assert Identity(Role.REVIEWER, "Dana Whitfield").name == "Dana Whitfield"


def test_the_origin_check_compares_the_host_and_https_is_seen_through_a_proxy() -> None:
    assert same_origin("https://review.example", "review.example")  # TLS ended at the proxy
    assert same_origin("http://127.0.0.1:8700", "127.0.0.1:8700") and same_origin(None, "h")
    assert not same_origin("https://attacker.example", "review.example")
    assert not same_origin("null", "review.example") and not same_origin("https://x", None)
    assert over_https("https", None) and over_https("http", "https, http") and not over_https("http", None)


def test_sessions_expire_end_and_failed_sign_ins_are_counted_in_a_window() -> None:
    now = [0.0]
    sessions = ReviewSessions(ttl_s=10, max_attempts=2, window_s=5, clock=lambda: now[0])
    caller = Caller(Role.REVIEWER, "caller-1", "ana")
    first, second = sessions.start(caller), sessions.start(caller)
    assert first.id != second.id and first.csrf != second.csrf and first.csrf_ok(first.csrf)
    assert not first.csrf_ok(second.csrf) and not first.csrf_ok("")
    sessions.end(second.id)
    assert sessions.get(first.id) == first and sessions.get(second.id) is None and sessions.get(None) is None
    now[0] = 10.0
    assert sessions.get(first.id) is None  # expired
    sessions.failed("10.0.0.1")
    assert sessions.retry_after("10.0.0.1") is None
    sessions.failed("10.0.0.1")
    assert sessions.retry_after("10.0.0.1") == 5.0 and sessions.retry_after("10.0.0.2") is None
    now[0] = 15.0
    assert sessions.retry_after("10.0.0.1") is None
    with pytest.raises(ValueError):
        ReviewSessions(ttl_s=0)


def test_without_a_label_store_the_form_asks_no_judgement() -> None:
    form = _form(decision="reject", reason="not a real case")
    made = decide(form, Offer(None, offered=OFFERED), judged=False)
    assert made.judgement is None
    with pytest.raises(FormProblems, match="say whether"):
        decide(form, Offer(None, offered=OFFERED))


def test_allowing_a_hand_off_drops_the_outcome_check_that_ruled_it_out() -> None:
    no_hand_off = Assertion(name="no_escalation", reason="this case needs no human", collection="escalations",
                            where={"new": True}, min_count=0, max_count=0)  # fmt: skip
    assert SUGGESTED.outcome is not None
    spec = SUGGESTED.model_copy(update={"outcome": OutcomeSpec(must=(*SUGGESTED.outcome.must, no_hand_off))})
    base = {"decision": "approve", "judgement": "pass", "reason": "fine"}
    for escalation, kept in (("either", ["appeal"]), ("ruled_out", ["appeal", "no_escalation"])):
        offer = Offer(spec, frozenset({"submit_appeal"}), OFFERED, RCM.escalate_tool, RCM.escalations)
        made = decide(_form(**base, escalation=escalation), offer)
        assert made.spec is not None and made.spec.outcome is not None
        assert [a.name for a in made.spec.outcome.must] == kept
