"""Hostile JSON the schema cannot describe (NaN, Infinity, lone surrogates) gets a 4xx, never a crash,
and nothing of it is recorded."""

from __future__ import annotations

import pytest

from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration
JSON = {"content-type": "application/json"}


def test_nan_where_an_object_belongs_is_a_422_not_a_crash(bridge: Bridge) -> None:
    with bridge.client("agent-token") as client:
        answer = client.post("/v1/episodes", content=b'{"work_item": NaN}', headers=JSON)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["input"] == "nan"


def test_a_lone_surrogate_in_an_outcome_is_refused_and_nothing_is_recorded(bridge: Bridge) -> None:
    before = len(bridge.capture.outbox.rows())
    body = (
        b'{"episode_id": "ep", "item_id": "CLM-1", "kind": "paid", '
        b'"observed_at": "2025-01-01T00:00:00Z", "external_ref": "\\ud800"}'
    )
    with bridge.client("integration-token") as client:
        answer = client.post("/v1/outcomes", content=body, headers=JSON)
    assert answer.status_code == 400
    assert "surrogate" in answer.json()["detail"]
    assert len(bridge.capture.outbox.rows()) == before


def test_nan_in_a_gateway_escalation_is_a_422(bridge: Bridge) -> None:
    with bridge.client("agent-token") as client:
        answer = client.post("/v1/gateway/episodes/ep-1/escalate", content=b'{"reason": NaN}', headers=JSON)
    assert answer.status_code == 422


def test_an_emoji_written_as_a_surrogate_pair_is_ordinary_text(bridge: Bridge) -> None:
    body = (
        b'{"work_item": {"domain": "rcm", "kind": "denial", "item_id": "CLM-1001", '
        b'"instructions": "work it \\ud83d\\ude00", "payload": {"claim_id": "CLM-1001"}}, "wait": false}'
    )
    with bridge.client("agent-token") as client:
        answer = client.post("/v1/episodes", content=body, headers=JSON)
    assert answer.status_code == 202
