"""The bridge HTTP API over a real server: roles, episodes, the tool gateway, outcomes, reads."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas import verify_chain
from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}


def test_requests_without_a_valid_token_are_401_and_wrong_roles_403(bridge: Bridge) -> None:
    body = {"work_item": WORK_ITEM}
    assert bridge.client(None).post("/v1/episodes", json=body).status_code == 401
    unknown = bridge.client("nope").post("/v1/episodes", json=body)
    assert unknown.status_code == 401 and unknown.headers["www-authenticate"] == "Bearer"
    forbidden = bridge.client("reviewer-token").post("/v1/episodes", json=body)
    assert forbidden.status_code == 403 and "needs" in forbidden.json()["detail"]
    assert bridge.client("agent-token").get("/v1/phi/phi_x").status_code == 403


def test_an_agent_runs_an_episode_and_a_reviewer_reads_it(bridge: Bridge) -> None:
    run = bridge.client("agent-token").post("/v1/episodes", json={"work_item": WORK_ITEM})
    assert run.status_code == 200, run.text
    result = run.json()
    assert result["status"] == "completed" and result["tool_calls"] == 1
    bridge.project()
    reviewer = bridge.client("reviewer-token")
    episode = reviewer.get(f"/v1/episodes/{result['episode_id']}").json()
    assert episode["episode"]["status"] == "completed"
    assert [c["tool"] for c in episode["tool_calls"]] == ["get_remittance"]
    events = reviewer.get(f"/v1/episodes/{result['episode_id']}/events").json()
    assert verify_chain([e["structured"] for e in events]) is None
    listed = reviewer.get("/v1/episodes", params={"work_item_id": "CLM-1001"}).json()
    assert [e["episode_id"] for e in listed] == [result["episode_id"]]


def test_an_episode_can_be_started_without_waiting(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    started = agent.post("/v1/episodes", json={"work_item": WORK_ITEM, "wait": False})
    assert started.status_code == 202
    episode_id = started.json()["episode_id"]
    for _ in range(200):
        run = agent.get(f"/v1/runs/{episode_id}").json()
        if run["status"] != "running":
            break
    assert run["status"] == "completed"


def test_the_gateway_executes_and_captures_an_external_agents_calls(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    opened = agent.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM, "max_steps": 2}).json()
    episode_id = opened["episode_id"]
    assert {t["function"]["name"] for t in opened["tools"]} >= {"get_remittance", "submit_appeal"}
    ok = agent.post(
        f"/v1/gateway/episodes/{episode_id}/calls",
        json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
    )
    assert ok.status_code == 200 and ok.json()["outcome"] == "ok"
    bad = agent.post(
        f"/v1/gateway/episodes/{episode_id}/calls", json={"name": "get_claim", "arguments": {"claim": 7}}
    )
    assert bad.json()["outcome"] == "failed" and bad.json()["error"]["kind"] == "validation"
    spent = agent.post(
        f"/v1/gateway/episodes/{episode_id}/calls",
        json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
    )
    assert spent.json()["error"]["kind"] == "budget"
    closed = agent.post(f"/v1/gateway/episodes/{episode_id}/close", json={"status": "completed"})
    assert closed.status_code == 200
    assert agent.post(f"/v1/gateway/episodes/{episode_id}/close", json={}).status_code == 404
    events = bridge.capture.outbox.events(episode_id)
    assert [e["type"].split(".")[1] for e in events] == [
        "episode",
        "tool",
        "tool",
        "tool",
        "tool",
        "tool",
        "tool",
        "episode",
    ]
    assert verify_chain(events) is None


def test_a_later_outcome_joins_its_episode(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    episode_id = agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).json()["episode_id"]
    outcome = {
        "episode_id": episode_id,
        "kind": "denied",
        "item_id": "CLM-1001",
        "observed_at": datetime(2026, 12, 1, tzinfo=UTC).isoformat(),
        "amount": "120.00",
        "reason_codes": ["CO-16"],
    }
    integration = bridge.client("integration-token")
    assert agent.post("/v1/outcomes", json=outcome).status_code == 403  # no agent writes its own signal
    recorded = integration.post("/v1/outcomes", json=outcome)
    assert recorded.status_code == 202, recorded.text
    events = bridge.capture.outbox.events(episode_id)
    assert events[-1]["type"] == "loopline.outcome.observed.v1"
    assert recorded.json()["seq"] == len(events) - 1
    assert verify_chain(events) is None
    unknown = integration.post("/v1/outcomes", json={**outcome, "episode_id": "no-such-episode"})
    assert unknown.status_code == 404


def test_phi_is_tokenised_in_events_and_revealed_only_to_operators(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    opened = agent.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}).json()
    result = agent.post(
        f"/v1/gateway/episodes/{opened['episode_id']}/calls",
        json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
    ).json()
    claim = result["result"]["claim"]
    events = bridge.capture.outbox.events(opened["episode_id"])
    recorded = str(events)
    for field in ("patient_last_name", "member_id", "patient_birth_date"):
        assert claim[field] not in recorded, field
    token = events[-1]["data"]["result"]["claim"]["patient_last_name"]
    assert token.startswith("phi_")
    revealed = bridge.client("operator-token").get(f"/v1/phi/{token}")
    assert revealed.status_code == 200
    assert revealed.json()["value"] == claim["patient_last_name"]
    assert bridge.client("reviewer-token").get(f"/v1/phi/{token}").status_code == 403


def test_when_events_cannot_be_recorded_the_api_answers_503_and_runs_nothing(bridge: Bridge) -> None:
    # the bridge never acts on a live system without a record: a broken outbox (full disk, closed
    # store) stops episodes, tool calls and outcomes with a clear 503, not a 500
    agent = bridge.client("agent-token")
    opened = agent.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}).json()
    bridge.capture.outbox.close()
    answers = [
        bridge.client("agent-token").post("/v1/episodes", json={"work_item": WORK_ITEM}),
        bridge.client("agent-token").post(
            f"/v1/gateway/episodes/{opened['episode_id']}/calls",
            json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
        ),
        bridge.client("integration-token").post(
            "/v1/outcomes",
            json={
                "episode_id": opened["episode_id"],
                "kind": "paid",
                "item_id": "CLM-1001",
                "observed_at": "2025-01-01T00:00:00Z",
            },
        ),
    ]
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert "could not be recorded" in answer.json()["detail"] and "closed" in answer.json()["detail"]
        assert answer.headers["retry-after"] == "5"


def test_operators_see_the_events_the_relay_rejected(bridge: Bridge) -> None:
    from bridge.capture import DeliveryLog, DeliveryMark

    agent = bridge.client("agent-token")
    episode_id = agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).json()["episode_id"]
    row = bridge.capture.outbox.rows(episode_id)[2]
    # what the relay records when the broker refuses an event for good (tested with the relay itself)
    relay_side = DeliveryLog(bridge.capture.outbox.path)
    relay_side.mark([DeliveryMark.rejection(row.pos, "the broker refuses it: too large", 1e9)])
    relay_side.close()
    operator = bridge.client("operator-token")
    [rejected] = operator.get("/v1/capture/rejected").json()
    assert (rejected["event_id"], rejected["episode_id"], rejected["seq"]) == (row.event_id, episode_id, 2)
    assert rejected["size_bytes"] == len(row.doc) and "too large" in rejected["reason"]
    assert rejected["rejected_at"].startswith("2001-09-09")
    assert agent.get("/v1/capture/rejected").status_code == 403


def test_healthz_shows_capture(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    assert agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).status_code == 200
    health = bridge.client(None).get("/healthz").json()  # no token needed: probes have none
    assert health["status"] == "ok"
    assert health["capture"]["relay"] == "off"  # this bridge has no broker
    assert health["capture"]["pending"] == bridge.capture.outbox.pending_count() > 0


def test_bad_requests_get_4xx_with_a_message(bridge: Bridge) -> None:
    agent = bridge.client("agent-token")
    assert agent.post("/v1/episodes", json={"work_item": {"domain": "rcm"}}).status_code == 422
    assert (
        agent.post(
            "/v1/episodes", content=b"{not json", headers={"content-type": "application/json"}
        ).status_code
        == 422
    )
    huge = agent.post("/v1/episodes", content=b"x" * 1_100_000, headers={"content-type": "application/json"})
    assert huge.status_code == 413
    missing = agent.post("/v1/gateway/episodes/nope/calls", json={"name": "get_claim"})
    assert missing.status_code == 404 and "no open gateway episode" in missing.json()["detail"]


def test_ids_that_would_make_an_invalid_event_subject_are_refused_with_422(bridge: Bridge) -> None:
    # a work item id or tool name becomes its event's CloudEvents subject, which may hold no control
    # characters: refused at the door, not a 500 from the recorder or a dead-lettered event later
    agent = bridge.client("agent-token")
    bad_item = agent.post("/v1/episodes", json={"work_item": {**WORK_ITEM, "item_id": "CLM-1\n"}})
    assert bad_item.status_code == 422 and "item_id" in bad_item.text
    opened = agent.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}).json()
    bad_tool = agent.post(f"/v1/gateway/episodes/{opened['episode_id']}/calls", json={"name": "get\tclaim"})
    assert bad_tool.status_code == 422 and "name" in bad_tool.text
    fine = agent.post(
        f"/v1/gateway/episodes/{opened['episode_id']}/calls",
        json={"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}},
    )
    assert fine.status_code == 200


def test_the_process_remembers_a_bounded_number_of_runs(
    bridge: Bridge, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bridge.api.runs as runs_module

    monkeypatch.setattr(runs_module, "MAX_REMEMBERED_RUNS", 2)
    agent = bridge.client("agent-token")
    ids = [agent.post("/v1/episodes", json={"work_item": WORK_ITEM}).json()["episode_id"] for _ in range(3)]
    assert agent.get(f"/v1/runs/{ids[0]}").status_code == 404
    assert [agent.get(f"/v1/runs/{i}").json()["status"] for i in ids[1:]] == ["completed", "completed"]
