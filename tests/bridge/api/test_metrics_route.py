"""`GET /metrics` on a real bridge server parses with Prometheus' own parser and reports capture
(pending, delivered, rejected, delivery latency), edge cases by rule and episodes by canary arm."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bridge.capture.delivery import DeliveryLog
from bridge.capture.outbox_rows import DeliveryMark
from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}


def _scrape(bridge: Bridge) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    response = bridge.client(None).get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    return {
        family.name: [(s.name, s.labels, s.value) for s in family.samples]
        for family in text_string_to_metric_families(response.text)
    }


def test_metrics_report_capture_and_the_projections_without_a_token(bridge: Bridge) -> None:
    run = bridge.client("agent-token").post("/v1/episodes", json={"work_item": WORK_ITEM})
    assert run.status_code == 200, run.text
    before = _scrape(bridge)
    rows = bridge.capture.outbox.rows()
    assert before["loopline_capture_pending"] == [("loopline_capture_pending", {}, float(len(rows)))]
    assert "loopline_capture_backlog_age_seconds" in before and "process_cpu_seconds" in before
    log = DeliveryLog(bridge.capture.outbox.path)
    log.mark([DeliveryMark(r.pos, 0, i, r.appended_at + 0.02) for i, r in enumerate(rows)])
    log.close()
    bridge.project()
    after = _scrape(bridge)
    latency = {
        name: value for name, labels, value in after["loopline_capture_delivery_seconds"] if not labels
    }
    assert latency["loopline_capture_delivery_seconds_count"] == len(rows)
    buckets = {s[1]["le"]: s[2] for s in after["loopline_capture_delivery_seconds"] if "le" in s[1]}
    assert buckets["0.01"] == 0 and buckets["0.025"] == len(rows)
    assert after["loopline_capture_pending"][0][2] == 0
    again = _scrape(bridge)
    assert again["loopline_capture_delivery_seconds"] == after["loopline_capture_delivery_seconds"]
    episodes = {(s[1]["route"], s[1]["status"]): s[2] for s in after["loopline_episodes"]}
    assert episodes == {("scripted", "completed"): 1.0}
    assert after["loopline_projections_up"][0][2] == 1.0 and "loopline_edge_cases" in after


def test_metrics_are_not_in_the_api_document(bridge: Bridge) -> None:
    assert "/metrics" not in bridge.client(None).get("/openapi.json").json()["paths"]
