"""Every event of an episode carries a W3C `traceparent`: the caller's, when it sends a valid one
to the route that starts the episode, else the episode's own; a later outcome joins the same trace."""

from __future__ import annotations

import pytest

from schemas.traceparent import episode_traceparent, parse_traceparent
from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}
CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _traces(bridge: Bridge, episode_id: str) -> set[str | None]:
    return {e["traceparent"] for e in bridge.capture.outbox.events(episode_id)}


def test_an_episode_without_a_caller_context_has_its_own_on_every_event(bridge: Bridge) -> None:
    run = bridge.client("agent-token").post("/v1/episodes", json={"work_item": WORK_ITEM}).json()
    episode_id = run["episode_id"]
    bridge.project()
    outcome = {
        "episode_id": episode_id,
        "kind": "paid",
        "item_id": "CLM-1001",
        "observed_at": "2025-01-01T00:00:00Z",
    }
    assert bridge.client("integration-token").post("/v1/outcomes", json=outcome).status_code == 202
    events = bridge.capture.outbox.events(episode_id)
    assert events[-1]["type"] == "loopline.outcome.observed.v1" and len(events) > 3
    assert _traces(bridge, episode_id) == {episode_traceparent(episode_id)}
    assert parse_traceparent(episode_traceparent(episode_id)) is not None


def test_a_callers_traceparent_is_honoured_by_both_routes_and_the_outcome(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    run = agent.post("/v1/episodes", json={"work_item": WORK_ITEM}, headers={"traceparent": CALLER}).json()
    opened = agent.post(
        "/v1/gateway/episodes", json={"work_item": WORK_ITEM}, headers={"traceparent": CALLER}
    ).json()
    agent.post(
        f"/v1/gateway/episodes/{opened['episode_id']}/calls",
        json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
    )
    bridge.project()
    outcome = {
        "episode_id": run["episode_id"],
        "kind": "paid",
        "item_id": "CLM-1001",
        "observed_at": "2025-01-01T00:00:00Z",
    }
    assert bridge.client("integration-token").post("/v1/outcomes", json=outcome).status_code == 202
    assert _traces(bridge, run["episode_id"]) == {CALLER}
    assert _traces(bridge, opened["episode_id"]) == {CALLER}


@pytest.mark.parametrize(
    "header",
    [
        "not a trace",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ],
)
def test_an_invalid_traceparent_is_ignored(bridge: Bridge, header: str) -> None:
    run = (
        bridge.client("agent-token")
        .post("/v1/episodes", json={"work_item": WORK_ITEM}, headers={"traceparent": header})
        .json()
    )
    assert _traces(bridge, run["episode_id"]) == {episode_traceparent(run["episode_id"])}
