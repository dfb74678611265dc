"""The sandbox answers hostile JSON with a 4xx and keeps its world: NaN, Infinity, lone surrogates."""

from __future__ import annotations

import httpx

from tests.adapters.conftest import SANDBOX_ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {SANDBOX_ADMIN_TOKEN}", "content-type": "application/json"}
JSON = {"content-type": "application/json"}


def test_a_lone_surrogate_in_a_tool_body_is_refused_with_the_reason(sandbox_url: str) -> None:
    body = b'{"queue": "coding", "recommended_action": "review", "reason": "x\\ud800"}'
    answer = httpx.post(f"{sandbox_url}/claims/CLM-1001/escalations", content=body, headers=JSON)
    assert answer.status_code == 400
    error = answer.json()["error"]  # the tool routes' own error shape, as documented
    assert error["kind"] == "validation" and "lone UTF-16 surrogate" in error["message"]


def test_a_lone_surrogate_never_reaches_the_stored_world(sandbox_url: str) -> None:
    body = b'{"name": "\\udfff", "tax_id": "1", "billing_npi": "1316246810"}'
    answer = httpx.put(f"{sandbox_url}/admin/practice", content=body, headers=ADMIN)
    assert answer.status_code == 400
    assert httpx.get(f"{sandbox_url}/admin/world", headers=ADMIN).status_code == 200


def test_nan_in_an_admin_body_is_a_422_that_names_the_field(sandbox_url: str) -> None:
    answer = httpx.put(f"{sandbox_url}/admin/faults", content=b'{"seed": NaN}', headers=ADMIN)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "seed"]
