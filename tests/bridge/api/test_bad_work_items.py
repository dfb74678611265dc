"""Work items the bridge cannot work get a 4xx with the reason, never a 500, whatever the policy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from envs.rollout import reference_policy
from tests.bridge.api.conftest import Bridge, serve_bridge

pytestmark = pytest.mark.integration

DENIAL = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}


@pytest.fixture
def reference_bridge(tmp_path: Path) -> Iterator[Bridge]:
    with serve_bridge(tmp_path, reference_policy("rcm")) as served:
        yield served


def _item(**changes: Any) -> dict[str, Any]:
    return {**DENIAL, **changes}


@pytest.mark.parametrize(
    ("work_item", "reason"),
    [
        (_item(payload={}), "payload.claim_id"),
        (_item(payload={"claim_id": ""}), "payload.claim_id"),
        (_item(payload={"claim_id": 7}), "payload.claim_id"),
        (_item(domain="credit", kind="credit_package"), "domain"),
        (_item(kind="prior_auth"), "kind"),
        (_item(kind="work_queue", payload={"claims": "CLM-1"}), "payload.claims"),
    ],
)
def test_a_work_item_the_rcm_bridge_cannot_work_is_refused_with_422_naming_the_field(
    reference_bridge: Bridge, work_item: dict[str, Any], reason: str
) -> None:
    agent = reference_bridge.client("agent-token")
    for wait in (True, False):
        answer = agent.post("/v1/episodes", json={"work_item": work_item, "wait": wait})
        assert answer.status_code == 422, answer.text
        assert reason in answer.json()["detail"]
    opened = agent.post("/v1/gateway/episodes", json={"work_item": work_item})
    assert opened.status_code == 422 and reason in opened.json()["detail"]


def test_a_work_item_the_reference_policy_cannot_plan_is_escalated_not_a_server_error(
    reference_bridge: Bridge,
) -> None:
    # a well-formed denial without the office's date and write-off limit: the specialist hands it over
    agent = reference_bridge.client("agent-token")
    run = agent.post("/v1/episodes", json={"work_item": DENIAL})
    assert run.status_code == 200, run.text
    assert run.json()["status"] == "escalated" and "worked_on" in run.json()["escalation_reason"]
    started = agent.post("/v1/episodes", json={"work_item": DENIAL, "wait": False})
    assert started.status_code == 202
    episode_id = started.json()["episode_id"]
    for _ in range(400):
        polled = agent.get(f"/v1/runs/{episode_id}")
        assert polled.status_code == 200, polled.text
        if polled.json()["status"] != "running":
            break
    assert polled.json()["status"] == "escalated"


def test_a_run_the_runtime_failed_reads_as_failed_with_its_error_not_a_500(
    tmp_path: Path,
) -> None:
    def broken(_messages: object) -> object:
        raise RuntimeError("a bug in the policy adapter")

    from engine import ScriptedPolicy

    with serve_bridge(tmp_path, ScriptedPolicy(broken)) as served:  # type: ignore[arg-type]
        agent = served.client("agent-token")
        run = agent.post("/v1/episodes", json={"work_item": DENIAL})
        assert run.status_code == 200, run.text
        assert run.json()["status"] == "failed" and "a bug in the policy adapter" in run.json()["error"]
        started = agent.post("/v1/episodes", json={"work_item": DENIAL, "wait": False}).json()
        for _ in range(400):
            polled = agent.get(f"/v1/runs/{started['episode_id']}")
            assert polled.status_code == 200, polled.text
            if polled.json()["status"] != "running":
                break
        assert polled.json()["status"] == "failed"
