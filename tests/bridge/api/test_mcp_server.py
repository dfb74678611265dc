"""The official `mcp` SDK client completes an RCM episode through the bridge's MCP endpoint (mounted
on the bridge's own server), and the archive holds the events the HTTP gateway records for the same
calls; tokens and roles are the gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from adapters.serving import serve_in_thread
from adapters.surrogates import TOKEN
from bridge.api.app import create_app
from bridge.api.auth import TokenTable
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import ArchiveRecord, SqlEventArchive
from engine import EpisodeConfig, ScriptedPolicy, say
from loopline.bridge.app import rcm_services
from schemas.codec import from_structured
from tests.bridge.api.conftest import TOKENS

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}
CALLS = [("get_claim", {"claim_id": "CLM-1001"}), ("get_remittance", {"claim_id": "CLM-1001"})]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, CaptureService, SqlEventArchive]]:
    capture = CaptureService.open(
        CaptureConfig(
            tenant="acme",
            source="loopline://bridge/test",
            outbox_path=tmp_path / "outbox.db",
            vault_url=f"sqlite:///{tmp_path / 'vault.db'}",
            environment="test",
        )
    )
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    services = rcm_services(
        capture,
        Toolbox(RCM_TOOLS, SimBackend(seed_world())),
        ScriptedPolicy(lambda _m: say("nothing")),
        EpisodeConfig(max_steps=6),
        archive,
    )
    api = create_app(services, TokenTable.from_tokens(TOKENS))  # the MCP endpoint is mounted at /mcp/
    with serve_in_thread(api, name="bridge-api", lifespan="on") as api_url:
        yield api_url, f"{api_url}/mcp/", capture, archive
    capture.close()


async def _mcp_episode(url: str, token: str) -> tuple[str, list[Any], list[str]]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        opened = await session.call_tool("open_episode", {"work_item": WORK_ITEM, "model": "mcp-agent"})
        episode_id = json.loads(opened.content[0].text)["episode_id"]  # type: ignore[union-attr]
        results = []
        for name, arguments in CALLS:
            answer = await session.call_tool(name, arguments)
            assert not answer.is_error, answer
            results.append(json.loads(answer.content[0].text))  # type: ignore[union-attr]
        closed = await session.call_tool(
            "close_episode", {"status": "completed", "final_message": "reviewed"}
        )
        assert not closed.is_error, closed
    return episode_id, results, names


def _comparable(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out = []
    for event in events:
        data = dict(event["data"])
        for key in ("latency_ms", "duration_ms"):
            data.pop(key, None)
        if "call" in data:
            data["call"] = {k: v for k, v in data["call"].items() if k != "call_id"}
        data.pop("call_id", None)
        out.append((event["type"], data))
    return out


def test_the_mcp_client_completes_an_episode_recorded_as_the_gateway_records_it(
    served: tuple[str, str, CaptureService, SqlEventArchive],
) -> None:
    api_url, mcp_url, capture, archive = served
    episode_id, results, names = anyio.run(_mcp_episode, mcp_url, "agent-token")
    assert {"open_episode", "close_episode", "escalate", "get_claim", "submit_appeal"} <= set(names)
    assert [r["outcome"] for r in results] == ["ok", "ok"]
    agent = httpx.Client(base_url=api_url, headers={"Authorization": "Bearer agent-token"})
    opened = agent.post("/v1/gateway/episodes", json={"work_item": WORK_ITEM, "model": "mcp-agent"}).json()
    for name, arguments in CALLS:
        agent.post(
            f"/v1/gateway/episodes/{opened['episode_id']}/calls", json={"name": name, "arguments": arguments}
        )
    agent.post(
        f"/v1/gateway/episodes/{opened['episode_id']}/close",
        json={"status": "completed", "final_message": "reviewed"},
    )
    # what the relay and the projector would do: every outbox row into the archive
    archive.append([ArchiveRecord.of(from_structured(row.structured())) for row in capture.outbox.rows()])
    via_mcp = list(archive.iter_structured(stream=episode_id))
    via_http = list(archive.iter_structured(stream=opened["episode_id"]))
    assert [e["type"] for e in via_mcp][-1] == "loopline.episode.ended.v1"
    assert _comparable(via_mcp) == _comparable(via_http)
    assert TOKEN.search(json.dumps(via_mcp)), "PHI in the results is tokenised as the gateway tokenises it"
    assert "mcp-agent" in json.dumps(via_mcp[0]["data"]["policy"])
    # the episode is the agent's own: another agent's token cannot reach it through the API
    other = httpx.Client(base_url=api_url, headers={"Authorization": "Bearer other-agent-token"})
    assert other.get(f"/v1/episodes/{episode_id}").status_code == 404


async def _refused(url: str, token: str) -> str:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        answer = await session.call_tool("get_claim", {"claim_id": "CLM-1001"})
        assert answer.is_error
        return str(answer.content[0].text)  # type: ignore[union-attr]


def test_roles_and_an_unopened_episode_are_refused(
    served: tuple[str, str, CaptureService, SqlEventArchive],
) -> None:
    _, mcp_url, _, _ = served
    assert anyio.run(_refused, mcp_url, "reviewer-token").startswith("403")
    assert anyio.run(_refused, mcp_url, "nope").startswith("401")
    assert anyio.run(_refused, mcp_url, "agent-token").startswith("404")
