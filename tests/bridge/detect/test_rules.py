"""Each edge-case rule fires on its case, stays quiet otherwise, and fingerprints without the episode."""

from __future__ import annotations

from bridge.detect import DetectConfig, EdgeCaseDetector, EpisodeContext, Finding, Rejected
from schemas.tools import SideEffect, ToolOutcome
from tests.bridge.store.builders import EpisodeBuilder

CONFIG = DetectConfig(
    known_vocabulary={"carc": frozenset({"16", "45", "197"}), "group_code": frozenset({"CO", "PR"})},
    latency_threshold_ms=10_000,
    latency_min_samples=10,
    latency_window=50,
)


def _rules(findings: list[Finding]) -> list[str]:
    return [f.rule for f in findings]


def _detector() -> EdgeCaseDetector:
    return EdgeCaseDetector(CONFIG)


def test_a_5xx_from_the_live_system_is_a_tool_failure_edge_case_and_a_4xx_is_not() -> None:
    ep = EpisodeBuilder()
    (finding,) = _detector().evaluate(ep.failed("c1", "submit_appeal", status_code=503))
    assert (finding.rule, finding.severity, finding.features) == (
        "tool_failure.http_5xx",
        "medium",
        {"tool": "submit_appeal", "status_code": 503},
    )
    assert _detector().evaluate(ep.failed("c2", "submit_appeal", status_code=404)) == []


def test_a_live_answer_that_cannot_be_relied_on_is_an_edge_case_with_its_location() -> None:
    ep = EpisodeBuilder()
    damaged = ep.failed(
        "c1", "get_financial_statements", kind="backend", status_code=200,
        details={"location": "Income statement!B16", "problem": "a figure may be wrong"},
    )  # fmt: skip
    (finding,) = _detector().evaluate(damaged)
    assert (finding.rule, finding.features) == (
        "tool_failure.unreadable_answer",
        {"tool": "get_financial_statements"},
    )
    assert finding.evidence["location"] == "Income statement!B16"
    assert (
        _detector().evaluate(ep.failed("c2", "get_financial_statements", kind="domain", status_code=404))
        == []
    )


def test_a_422_from_the_live_system_for_a_schema_valid_call_is_drift() -> None:
    ep = EpisodeBuilder()
    (finding,) = _detector().evaluate(ep.failed("c1", "check_eligibility", status_code=422))
    assert (finding.rule, finding.features) == (
        "tool_failure.live_rejected",
        {"tool": "check_eligibility", "status_code": 422},
    )
    assert _detector().evaluate(ep.failed("c2", "check_eligibility", status_code=409)) == []


def test_a_timeout_is_medium_and_an_unknown_outcome_is_high() -> None:
    ep = EpisodeBuilder()
    timeout = _detector().evaluate(ep.failed("c1", "get_claim", kind="timeout", status_code=None))
    unknown = _detector().evaluate(
        ep.failed("c2", "post_payment", kind="timeout", status_code=None, outcome=ToolOutcome.UNKNOWN)
    )
    assert [(f.rule, f.severity) for f in timeout] == [("tool_failure.timeout", "medium")]
    assert [(f.rule, f.severity) for f in unknown] == [("tool_failure.unknown_outcome", "high")]


def test_invalid_arguments_from_the_agent_are_fingerprinted_by_tool_and_fields() -> None:
    ep = EpisodeBuilder()
    details = {"claim_id": "field required", "amount": "not a number"}
    (finding,) = _detector().evaluate(
        ep.failed("c1", "submit_claim", kind="validation", status_code=None, details=details)
    )
    assert finding.rule == "tool_failure.agent_validation"
    assert finding.features == {
        "tool": "submit_claim",
        "kind": "validation",
        "fields": ["amount", "claim_id"],
    }


def test_an_unusable_model_reply_is_a_schema_violation_whose_numbers_do_not_split_it() -> None:
    a = _detector().evaluate(
        EpisodeBuilder("ep-1").responded(3, invalid_reason="arguments at char 17 are not JSON")
    )
    b = _detector().evaluate(
        EpisodeBuilder("ep-2").responded(5, invalid_reason="arguments at char 94 are not JSON")
    )
    assert _rules(a) == ["schema_violation.model_reply"]
    assert a[0].fingerprint == b[0].fingerprint


def test_escalations_and_human_overrides_are_reported_but_approvals_are_not() -> None:
    ep = EpisodeBuilder()
    (esc,) = _detector().evaluate(
        ep.escalated("B7: provider not certified", trigger="policy", queue="credentialing")
    )
    assert (esc.rule, esc.features) == ("escalation", {"trigger": "policy", "queue": "credentialing"})
    (override,) = _detector().evaluate(ep.intervened("override", payload={"tool": "write_off"}))
    assert (override.rule, override.severity, override.features["tool"]) == (
        "human_override",
        "high",
        "write_off",
    )
    assert _detector().evaluate(ep.intervened("approve")) == []


def test_a_code_never_seen_in_training_is_found_anywhere_in_a_result() -> None:
    ep = EpisodeBuilder()
    result = {
        "claim": {
            "lines": [
                {"adjustments": [{"group_code": "CO", "carc": "45"}, {"group_code": "OA", "carc": 299}]}
            ]
        },
        "CARC": "16",
    }
    findings = _detector().evaluate(ep.returned("c1", "get_remittance", result))
    assert sorted((f.features["field"], f.features["value"]) for f in findings) == [
        ("carc", "299"),
        ("group_code", "OA"),
    ]
    assert {f.evidence["path"] for f in findings} == {
        "$.claim.lines[0].adjustments[1].carc",
        "$.claim.lines[0].adjustments[1].group_code",
    }


def test_unknown_codes_in_the_work_item_and_in_later_outcomes_count_too() -> None:
    cfg = DetectConfig(known_vocabulary={"carc": frozenset({"16"})})
    ep = EpisodeBuilder()
    started = ep.started()
    started = started.model_copy(
        update={
            "data": started.data.model_copy(
                update={"work_item": started.data.work_item.model_copy(update={"payload": {"carc": "B99"}})}
            )
        }  # type: ignore[attr-defined]
    )
    assert _rules(EdgeCaseDetector(cfg).evaluate(started)) == ["unknown_vocabulary"]
    outcome = ep.outcome("denied", reason_codes=("16",))
    assert EdgeCaseDetector(cfg).evaluate(outcome) == []


def test_a_denial_after_the_episode_resolved_the_item_contradicts_it() -> None:
    ep = EpisodeBuilder()
    outcome = ep.outcome("denied", reason_codes=("CO-50",))
    resolved = EpisodeContext("ep-1", "escalated", ok_writes=("submit_appeal",))
    completed = EpisodeContext("ep-1", "completed")
    unresolved = EpisodeContext("ep-1", "escalated")
    (finding,) = _detector().evaluate(outcome, resolved)
    assert (finding.rule, finding.severity, finding.features["last_write"]) == (
        "outcome_contradiction",
        "high",
        "submit_appeal",
    )
    assert _rules(_detector().evaluate(outcome, completed)) == ["outcome_contradiction"]
    assert _detector().evaluate(outcome, unresolved) == []
    assert _detector().evaluate(ep.outcome("paid"), resolved) == []
    assert _detector().evaluate(outcome, None) == []


def test_a_call_slower_than_the_threshold_or_its_tools_percentile_is_unusual() -> None:
    detector, ep = _detector(), EpisodeBuilder()
    assert _rules(detector.evaluate(ep.returned("c0", "get_payer", latency_ms=12_000))) == ["unusual_latency"]
    for i in range(20):
        assert detector.evaluate(ep.returned(f"c{i + 1}", "get_claim", latency_ms=100.0 + i)) == []
    (slow,) = detector.evaluate(ep.returned("c99", "get_claim", latency_ms=900.0))
    assert slow.features == {"tool": "get_claim", "basis": "percentile"}
    assert _detector().evaluate(ep.returned("c100", "get_claim", latency_ms=900.0)) == []  # no baseline yet


def test_the_same_case_in_two_episodes_shares_a_fingerprint_but_not_across_tenants_or_tools() -> None:
    def fp(episode: str, tenant: str = "acme", tool: str = "submit_appeal") -> str:
        ep = EpisodeBuilder(episode, tenant=tenant)
        (finding,) = _detector().evaluate(ep.failed("c1", tool, status_code=503))
        return finding.fingerprint

    assert fp("ep-1") == fp("ep-2")
    assert len({fp("ep-1"), fp("ep-1", tenant="other"), fp("ep-1", tool="get_claim")}) == 3


def test_a_finding_becomes_edge_case_data_with_its_evidence() -> None:
    ep = EpisodeBuilder("ep-7")
    event = ep.failed("c1", "submit_appeal", status_code=502)
    (finding,) = _detector().evaluate(event)
    data = finding.to_data()
    assert (data.fingerprint, data.source_episode_id, data.event_ids) == (
        finding.fingerprint,
        "ep-7",
        (event.id,),
    )
    assert data.evidence["features"] == {"tool": "submit_appeal", "status_code": 502}


def test_a_dead_lettered_message_is_a_schema_violation_even_with_hostile_headers() -> None:
    hostile = Rejected(
        "hash_mismatch",
        "hash does not match",
        "loopline.events.v1",
        event_type="x" * 5000,
        tenant="evil tenant\n",
        episode_id="e" * 900,
        event_id="i" * 300,
    )
    (finding,) = _detector().evaluate_rejected(hostile)
    data = finding.to_data()
    assert (finding.rule, finding.tenant) == ("schema_violation.dead_letter", "unknown")
    assert len(data.source_episode_id) == 128 and len(data.event_ids[0]) == 64
    plain = Rejected("not_json", "not valid JSON", "loopline.events.v1")
    assert _detector().evaluate_rejected(plain)[0].episode_id == "dlq:loopline.events.v1"


def test_edge_case_reports_are_never_judged_again() -> None:
    ep = EpisodeBuilder()
    (finding,) = _detector().evaluate(ep.failed("c1", "submit_appeal", status_code=503))
    report = ep._add(finding.to_data())
    assert _detector().evaluate(report) == []


def test_write_side_effects_are_not_needed_for_read_failures() -> None:
    ep = EpisodeBuilder()
    ep.call("get_claim", side_effect=SideEffect.READ)
    assert _detector().evaluate(ep.events[-1]) == []


def test_an_interrupted_episode_is_an_edge_case_high_when_a_write_was_in_flight() -> None:
    from schemas.events import EpisodeInterrupted

    ep = EpisodeBuilder()
    ep.started()
    in_flight = EpisodeInterrupted(reason="found open at start-up", last_seq=2, last_event_type="loopline.tool.called.v1",
                                   last_call_id="c1", last_tool="submit_appeal", last_side_effect=SideEffect.WRITE,
                                   effect_unknown=True)  # fmt: skip
    (finding,) = _detector().evaluate(ep._add(in_flight))
    assert (finding.rule, finding.severity) == ("episode_interrupted", "high")
    assert finding.features == {
        "effect_unknown": True,
        "tool": "submit_appeal",
        "episode": ep.events[-1].episodeid,
    }
    quiet = EpisodeInterrupted(reason="cut off", last_seq=0, last_event_type="loopline.episode.started.v1")
    (finding,) = _detector().evaluate(EpisodeBuilder()._add(quiet))
    assert (finding.rule, finding.severity) == ("episode_interrupted", "medium")


def test_every_write_of_unknown_effect_is_its_own_case_and_quiet_interruptions_are_one() -> None:
    from schemas.events import EpisodeInterrupted

    in_flight = EpisodeInterrupted(reason="found open at start-up", last_seq=2, last_event_type="loopline.tool.called.v1",
                                   last_call_id="c1", last_tool="post_write_off", last_side_effect=SideEffect.WRITE,
                                   effect_unknown=True)  # fmt: skip
    quiet = EpisodeInterrupted(reason="cut off", last_seq=0, last_event_type="loopline.episode.started.v1")
    detector = _detector()
    writes = [detector.evaluate(EpisodeBuilder(f"ep-{n}")._add(in_flight))[0] for n in range(4)]
    assert len({f.fingerprint for f in writes}) == 4 and {f.severity for f in writes} == {"high"}
    again = detector.evaluate(EpisodeBuilder("ep-0")._add(in_flight))[0]
    assert again.fingerprint == writes[0].fingerprint  # one case per episode: a redelivery is no new one
    calm = [detector.evaluate(EpisodeBuilder(f"ep-{n}")._add(quiet))[0] for n in range(3)]
    assert len({f.fingerprint for f in calm}) == 1
