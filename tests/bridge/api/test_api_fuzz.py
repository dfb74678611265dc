"""Schemathesis against the running API's OpenAPI spec: hostile but schema-shaped input never 5xx.

Uses schemathesis's case strategies directly (its pytest plugin does not run under pytest 9), one
hypothesis run per operation, with every role's token and a bad one.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

TOKENS = ("operator-token", "agent-token", "reviewer-token", "bad")


def test_no_request_shaped_by_the_spec_gets_a_server_error(bridge: Bridge) -> None:
    schema = schemathesis.openapi.from_url(f"{bridge.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    failures: list[str] = []
    calls: list[int] = []
    for operation in operations:

        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=operation.as_strategy(), token=st.sampled_from(TOKENS))
        def check(case: schemathesis.Case, token: str) -> None:
            response = case.call(
                base_url=bridge.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            )
            calls.append(response.status_code)
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} → {response.status_code}: {response.text[:200]}"
                )
            assert response.status_code < 500

        check()
    assert failures == []
    assert len(calls) >= 5 * len(operations)  # the fuzzing really reached the server
    assert any(code < 300 for code in calls) and any(400 <= code < 500 for code in calls)
