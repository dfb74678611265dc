"""Live backend failure semantics against the real sandbox: injected faults surface as typed tool
failures with the HTTP status, reads are retried, writes never are, and a write that timed out is
outcome unknown (and may well have happened)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.rcm import RCM_TOOLS
from adapters.rcm.live import LiveBackend
from adapters.rcm.models import PayerRules
from adapters.rcm.sandbox import FaultConfig, FaultRule, SandboxAdmin
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolOutcome, ToolResult
from tests.adapters.conftest import SANDBOX_ADMIN_TOKEN

pytestmark = pytest.mark.integration

ESCALATE = {
    "claim_id": "CLM-1021",
    "queue": "credentialing",
    "recommended_action": "review",
    "reason": "rendering provider not certified",
}


@pytest.fixture
def admin(sandbox_url: str) -> Iterator[SandboxAdmin]:
    client = SandboxAdmin(sandbox_url, SANDBOX_ADMIN_TOKEN)
    client.set_faults(FaultConfig())
    client.reset()
    yield client
    client.set_faults(FaultConfig())  # the server is shared with the conformance suite
    client.reset()
    client.close()


def _toolbox(url: str, **options: Any) -> Toolbox:
    options.setdefault("backoff_s", 0.01)
    return Toolbox(RCM_TOOLS, LiveBackend(url, **options))


def _call(toolbox: Toolbox, name: str, **arguments: Any) -> ToolResult:
    return toolbox.call(ToolCall(call_id="t", name=name, arguments=arguments))


def test_read_is_retried_through_transient_5xx(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="get_remittance", kind="http_error", status=503, first_n=2),))
    )
    result = _call(_toolbox(sandbox_url, read_attempts=3), "get_remittance", claim_id="CLM-1001")
    assert result.outcome is ToolOutcome.OK
    assert (
        result.result is not None
        and result.result["remittances"][0]["lines"][0]["remarks"][0]["code"] == "N290"
    )


def test_read_fails_with_the_status_when_retries_run_out(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="get_claim", kind="http_error", status=502, first_n=2),))
    )
    result = _call(_toolbox(sandbox_url, read_attempts=2), "get_claim", claim_id="CLM-1001")
    assert result.outcome is ToolOutcome.FAILED and result.error is not None
    assert result.error.kind == "http" and result.error.status_code == 502 and result.error.retryable


def test_write_is_never_retried_on_5xx(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="post_write_off", kind="http_error", status=503, first_n=1),))
    )
    toolbox = _toolbox(sandbox_url, read_attempts=5)
    first = _call(
        toolbox, "post_write_off", claim_id="CLM-1018", amount=70.0, reason_code="contractual", note=None
    )
    assert first.outcome is ToolOutcome.FAILED and first.error is not None and first.error.status_code == 503
    posted = {w.claim_id for w in admin.world().write_offs.values()}
    assert "CLM-1018" not in posted  # one attempt, refused before it took effect
    second = _call(
        toolbox, "post_write_off", claim_id="CLM-1018", amount=70.0, reason_code="contractual", note=None
    )
    assert second.outcome is ToolOutcome.OK


def test_write_answered_500_is_outcome_unknown(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="escalate_to_human", kind="http_error", status=500),))
    )
    result = _call(_toolbox(sandbox_url), "escalate_to_human", **ESCALATE)
    assert result.outcome is ToolOutcome.UNKNOWN and result.error is not None
    assert result.error.kind == "http" and result.error.status_code == 500


def test_write_timeout_is_outcome_unknown_and_the_write_may_have_happened(
    sandbox_url: str, admin: SandboxAdmin
) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="escalate_to_human", kind="timeout", delay_ms=1500),))
    )
    result = _call(_toolbox(sandbox_url, timeout_s=0.3), "escalate_to_human", **ESCALATE)
    assert result.outcome is ToolOutcome.UNKNOWN and result.error is not None
    assert result.error.kind == "timeout" and not result.error.retryable
    assert list(admin.world().escalations) == ["ESC-00001"]  # applied exactly once: not retried


def test_write_timeout_before_applying_is_still_unknown_to_the_client(
    sandbox_url: str, admin: SandboxAdmin
) -> None:
    rule = FaultRule(endpoint="close_claim", kind="timeout", delay_ms=1500, apply_write=False)
    admin.set_faults(FaultConfig(rules=(rule,)))
    result = _call(
        _toolbox(sandbox_url, timeout_s=0.3),
        "close_claim",
        claim_id="CLM-1008",
        reason="duplicate_of_paid_original",
        note=None,
    )
    assert result.outcome is ToolOutcome.UNKNOWN
    assert admin.world().claims["CLM-1008"].work_status == "open"


def test_read_timeout_is_retried(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="get_claim", kind="timeout", delay_ms=1500, first_n=1),))
    )
    result = _call(_toolbox(sandbox_url, timeout_s=0.3, read_attempts=2), "get_claim", claim_id="CLM-1001")
    assert result.outcome is ToolOutcome.OK


def test_injected_validation_error_on_a_write_is_a_failed_http_422(
    sandbox_url: str, admin: SandboxAdmin
) -> None:
    admin.set_faults(FaultConfig(error_4xx_rate=1.0))
    result = _call(
        _toolbox(sandbox_url),
        "submit_appeal",
        claim_id="CLM-1014",
        basis="medical_necessity",
        reason="records support medical necessity",
        attachment_document_ids=[],
    )
    assert result.outcome is ToolOutcome.FAILED and result.error is not None
    assert result.error.kind == "http" and result.error.status_code == 422
    assert admin.world().appeals == {}


def test_fault_rates_are_deterministic_by_seed(sandbox_url: str, admin: SandboxAdmin) -> None:
    toolbox = _toolbox(sandbox_url, read_attempts=1)

    def pattern(seed: int) -> list[bool]:
        admin.set_faults(FaultConfig(seed=seed, error_5xx_rate=0.4))
        return [_call(toolbox, "get_claim", claim_id="CLM-1001").outcome is ToolOutcome.OK for _ in range(25)]

    first, again, other = pattern(7), pattern(7), pattern(8)
    assert first == again
    assert 0 < first.count(False) < 25
    assert first != other


def test_latency_fault_delays_the_answer(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(FaultConfig(latency_ms=200))
    result = _call(_toolbox(sandbox_url), "get_payer_rules", payer_id="MCR")
    assert result.outcome is ToolOutcome.OK and result.latency_ms >= 200


def test_domain_refusal_carries_the_http_status(sandbox_url: str, admin: SandboxAdmin) -> None:
    result = _call(
        _toolbox(sandbox_url),
        "post_write_off",
        claim_id="CLM-1005",
        amount=1250.0,
        reason_code="no_authorization",
        note=None,
    )
    assert result.error is not None and result.error.kind == "domain" and result.error.status_code == 409
    assert result.error.details["code"] == "write_off_needs_approval"
    missing = _call(_toolbox(sandbox_url), "get_claim", claim_id="CLM-404")
    assert missing.error is not None and missing.error.status_code == 404


def test_payer_rule_change_at_runtime_changes_the_answer(sandbox_url: str, admin: SandboxAdmin) -> None:
    toolbox = _toolbox(sandbox_url)
    arguments = {
        "patient_id": "P-004",
        "payer_id": "BLUE",
        "procedure_codes": ["11042"],
        "diagnosis_codes": ["L97.412"],
        "service_date": "2025-06-06",
    }
    admin.set_rules(
        "BLUE", PayerRules(timely_filing_days=180, appeal_window_days=60, retro_auth_window_days=7)
    )
    refused = _call(toolbox, "request_authorization", **arguments)
    assert refused.error is not None and refused.error.details["code"] == "retro_auth_window_closed"
    admin.reset()
    assert _call(toolbox, "request_authorization", **arguments).outcome is ToolOutcome.OK


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_connection_refused_is_a_transport_failure_and_a_write_is_known_not_sent() -> None:
    toolbox = _toolbox(f"http://127.0.0.1:{_free_port()}", read_attempts=2)
    read = _call(toolbox, "get_claim", claim_id="CLM-1001")
    assert read.error is not None and read.error.kind == "transport" and read.outcome is ToolOutcome.FAILED
    write = _call(toolbox, "escalate_to_human", **ESCALATE)
    assert write.error is not None and write.error.kind == "transport" and write.outcome is ToolOutcome.FAILED
