"""The credit LiveBackend against the real sandbox with faults injected: reads are retried, writes
never are, a write that may have happened is outcome unknown, and a damaged statement document is
read exactly or refused with where it is damaged, never handed on wrong."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.credit import CREDIT_TOOLS
from adapters.credit.conformance.steps import FIGURES
from adapters.credit.documents import NoiseConfig
from adapters.credit.live import LiveBackend
from adapters.credit.sandbox import (
    FaultConfig,
    FaultRule,
    SandboxAdmin,
    SandboxConfig,
    seed_world,
    serve_in_thread,
)
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolOutcome, ToolResult

pytestmark = pytest.mark.integration
TOKEN = "test-credit-sandbox-admin-token"
DECLINE = {"package_id": "PKG-1006", "decision": "decline", "figures": FIGURES, "conditions": [],
           "memo": "Negative EBITDA over the last twelve months: declined under fund policy."}  # fmt: skip


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    with serve_in_thread(SandboxConfig(admin_token=TOKEN)) as url:
        yield url


@pytest.fixture
def admin(sandbox_url: str) -> Iterator[SandboxAdmin]:
    client = SandboxAdmin(sandbox_url, TOKEN)
    client.reset()
    yield client
    client.set_faults(FaultConfig())
    client.set_document_noise(None)
    client.close()


def _call(url: str, name: str, **arguments: Any) -> ToolResult:
    toolbox = Toolbox(CREDIT_TOOLS, LiveBackend(url, timeout_s=0.5, backoff_s=0.01))
    return toolbox.call(ToolCall(call_id="t", name=name, arguments=arguments))


def test_a_read_is_retried_through_transient_5xx(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(rules=(FaultRule(endpoint="get_package", kind="http_error", status=503, first_n=2),))
    )
    result = _call(sandbox_url, "get_package", package_id="PKG-1001")
    assert result.outcome is ToolOutcome.OK and result.result is not None
    assert result.result["borrower"]["name"] == "Harbour Distribution Holdings"


def test_a_write_answered_502_is_unknown_and_not_retried(sandbox_url: str, admin: SandboxAdmin) -> None:
    admin.set_faults(
        FaultConfig(
            rules=(FaultRule(endpoint="record_recommendation", kind="http_error", status=502, first_n=1),)
        )
    )
    result = _call(sandbox_url, "record_recommendation", **DECLINE)
    assert (
        result.outcome is ToolOutcome.UNKNOWN and result.error is not None and result.error.status_code == 502
    )
    assert admin.world().recommendations == {}  # one attempt, and the fault answered before it applied


def test_a_write_that_timed_out_is_unknown_and_may_have_happened(
    sandbox_url: str, admin: SandboxAdmin
) -> None:
    rule = FaultRule(endpoint="record_recommendation", kind="timeout", delay_ms=1500, first_n=1)
    admin.set_faults(FaultConfig(rules=(rule,)))
    result = _call(sandbox_url, "record_recommendation", **DECLINE)
    assert (
        result.outcome is ToolOutcome.UNKNOWN and result.error is not None and result.error.kind == "timeout"
    )
    assert list(admin.world().recommendations) == ["REC-1"]


def test_a_write_to_a_closed_port_never_arrived_and_is_failed() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = _call(f"http://127.0.0.1:{port}", "record_recommendation", **DECLINE)
    assert result.outcome is ToolOutcome.FAILED and result.error is not None and result.error.retryable


def test_damaged_statement_documents_are_read_exactly_or_refused_with_the_place(
    sandbox_url: str, admin: SandboxAdmin
) -> None:
    want = {p.label: p for p in seed_world().packages["PKG-1002"].periods}
    seen = set()
    for seed in range(12):
        admin.set_document_noise(NoiseConfig(seed=seed, rate=0.25))
        for label in ("FY2023", "2025Q3"):
            result = _call(sandbox_url, "get_financial_statements", package_id="PKG-1002", period=label)
            if result.outcome is ToolOutcome.OK:
                assert result.result is not None
                assert result.result["period"] == want[label].model_dump(mode="json")
                seen.add("read")
            else:
                assert result.error is not None and result.error.kind == "backend"
                assert result.error.details["location"].startswith("line ")
                seen.add("refused")
    assert seen == {"read", "refused"}


def test_a_domain_refusal_carries_its_code_and_http_status(sandbox_url: str, admin: SandboxAdmin) -> None:
    result = _call(sandbox_url, "get_financial_statements", package_id="PKG-1001", period="FY1999")
    assert result.error is not None and result.error.kind == "domain" and result.error.status_code == 404
    assert result.error.details["code"] == "unknown_period"
