"""The role matrix: every route of the bridge API, walked with every role's token.

The expected matrix is written out here, independent of the code, and matches the table in
docs/architecture.md ("Roles"); a route the OpenAPI document has and the matrix lacks fails the walk.
"""

from __future__ import annotations

import pytest

from tests.bridge.api.conftest import Bridge

pytestmark = pytest.mark.integration

ROLES = ("agent", "integration", "reviewer", "operator")
WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}

# (method, path template) → the roles admitted. Everything else gets 403.
MATRIX: dict[tuple[str, str], set[str]] = {
    ("POST", "/v1/episodes"): {"agent"},
    ("GET", "/v1/runs/{episode_id}"): {"agent", "reviewer", "operator"},
    ("POST", "/v1/gateway/episodes"): {"agent"},
    ("POST", "/v1/gateway/episodes/{episode_id}/calls"): {"agent"},
    ("POST", "/v1/gateway/episodes/{episode_id}/escalate"): {"agent"},
    ("POST", "/v1/gateway/episodes/{episode_id}/close"): {"agent"},
    ("POST", "/v1/outcomes"): {"integration"},
    ("GET", "/v1/episodes"): {"reviewer", "operator"},
    ("GET", "/v1/episodes/{episode_id}"): {"agent", "reviewer", "operator"},
    ("GET", "/v1/episodes/{episode_id}/events"): {"agent", "reviewer", "operator"},
    ("GET", "/v1/edge-cases"): {"reviewer", "operator"},
    ("GET", "/v1/edge-cases/{fingerprint}"): {"reviewer", "operator"},
    ("GET", "/v1/tool-error-rates"): {"reviewer", "operator"},
    ("GET", "/v1/capture/rejected"): {"operator"},
    ("GET", "/v1/phi/{token}"): {"operator"},
    ("GET", "/v1/labels/queue"): {"reviewer"},
    ("GET", "/v1/labels/episodes/{episode_id}"): {"reviewer"},
    ("POST", "/v1/labels"): {"reviewer"},
    ("GET", "/v1/labels"): {"reviewer"},
    ("GET", "/v1/review/drafts"): {"reviewer"},
    ("GET", "/v1/review/drafts/{draft_id}"): {"reviewer"},
    ("POST", "/v1/review/drafts/{draft_id}/approve"): {"reviewer"},
    ("POST", "/v1/review/drafts/{draft_id}/reject"): {"reviewer"},
    ("POST", "/v1/review/drafts/{draft_id}/preview"): {"reviewer"},
    ("POST", "/v1/review/drafts/{draft_id}/documents/{document_id}/reveal"): {"reviewer"},
    ("GET", "/healthz"): {"anyone"},
    ("GET", "/readyz"): {"anyone"},
}


def test_every_route_admits_exactly_the_roles_of_the_matrix(bridge: Bridge) -> None:
    spec = bridge.client(None).get("/openapi.json").json()
    routes = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    assert routes == set(MATRIX), "a route is missing from the role matrix (or the matrix is stale)"
    walked = 0
    for (method, template), admitted in MATRIX.items():
        path = template.format(
            episode_id="ep-x", fingerprint="fp-x", token="phi_x", draft_id="d-x", document_id="doc-x"
        )
        if "anyone" in admitted:
            assert bridge.client(None).request(method, path).status_code == 200
            continue
        assert bridge.client(None).request(method, path, json={}).status_code == 401, (method, path)
        for role in ROLES:
            answer = bridge.client(f"{role}-token").request(method, path, json={})
            if role in admitted:
                assert answer.status_code not in (401, 403), (method, path, role, answer.text)
            else:
                assert answer.status_code == 403, (method, path, role, answer.text)
                assert "needs" in answer.json()["detail"]
            walked += 1
    assert walked == 4 * sum(1 for admitted in MATRIX.values() if "anyone" not in admitted)


def test_an_agent_reads_and_drives_only_its_own_episodes(bridge: Bridge) -> None:
    mine, other = bridge.client("agent-token"), bridge.client("other-agent-token")
    run = mine.post("/v1/episodes", json={"work_item": WORK_ITEM}).json()
    bridge.project()
    episode_id = run["episode_id"]
    for path in (f"/v1/episodes/{episode_id}", f"/v1/episodes/{episode_id}/events", f"/v1/runs/{episode_id}"):
        assert mine.get(path).status_code == 200, path
        assert other.get(path).status_code == 404, path  # another agent's episode reads as absent
        assert bridge.client("reviewer-token").get(path).status_code == 200, path
    opened = mine.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM}).json()["episode_id"]
    call = {"name": "get_claim", "arguments": {"claim_id": "CLM-1001"}}
    assert other.post(f"/v1/gateway/episodes/{opened}/calls", json=call).status_code == 404
    assert other.post(f"/v1/gateway/episodes/{opened}/close", json={}).status_code == 404
    assert mine.post(f"/v1/gateway/episodes/{opened}/calls", json=call).status_code == 200
    assert mine.post(f"/v1/gateway/episodes/{opened}/close", json={}).status_code == 200
