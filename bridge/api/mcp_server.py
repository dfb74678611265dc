"""The bridge's tools over MCP (the official `mcp` SDK, streamable HTTP), for agents whose framework
speaks MCP instead of the HTTP gateway.

It is the gateway by another wire: the same `GatewaySessions` (so the same engine session, capture,
PHI tokens, budgets and escalation), the same bearer tokens and role (`agent`), the same owners.
One MCP session works one episode at a time: `open_episode` starts it (the work item, optionally
the agent's model name and a step budget), the domain's tools then act on it, and `escalate` or
`close_episode` ends it. Every call is recorded exactly as `POST /v1/gateway/episodes/{id}/calls`
records it. A `traceparent` header on the request that opens the episode is honoured as on the
gateway.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from pydantic import ValidationError
from starlette.applications import Starlette

from bridge.api.auth import Caller, Role, TokenTable
from bridge.api.models import OpenGatewayEpisode
from bridge.api.owners import EpisodeOwners
from bridge.api.services import BridgeServices
from bridge.api.sessions import GatewaySessions, SessionError
from schemas import new_id

CONTROL_TOOLS: list[dict[str, Any]] = [
    {
        "name": "open_episode",
        "description": "Start working one item through the bridge: every later tool call is recorded on it.",
        "inputSchema": OpenGatewayEpisode.model_json_schema(),
    },
    {
        "name": "escalate",
        "description": "Hand the episode to a human, with the reason and your recommendation.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "reason": {"type": "string", "minLength": 1},
                "recommendation": {"type": ["string", "null"]},
                "queue": {"type": ["string", "null"]},
            },
            "required": ["reason"],
        },
    },
    {
        "name": "close_episode",
        "description": "End the episode: `completed` with a short summary, or `aborted`.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "status": {"enum": ["completed", "aborted"]},
                "final_message": {"type": ["string", "null"]},
            },
            "required": ["status"],
        },
    },
]


class McpRefused(Exception):
    """A request the bridge refuses (no token, wrong role, no open episode)."""


class McpBridge:
    """MCP session id → the episode it works; the handlers of the MCP server."""

    def __init__(
        self, services: BridgeServices, sessions: GatewaySessions, tokens: TokenTable, owners: EpisodeOwners
    ) -> None:
        self.services, self.sessions, self.tokens, self.owners = services, sessions, tokens, owners
        self._episodes: dict[str, str] = {}
        self._lock = threading.Lock()

    def _caller(self, ctx: ServerRequestContext[Any, Any]) -> tuple[Caller, str, Mapping[str, str]]:
        headers = ctx.request.headers if ctx.request is not None else {}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        caller = self.tokens.caller_of(token) if scheme.lower() == "bearer" and token else None
        if caller is None:
            raise McpRefused("401: a bearer token of the bridge is required")
        if caller.role is not Role.AGENT:
            raise McpRefused(f"403: the MCP tools need the agent role, not {caller.role.value}")
        return caller, headers.get("mcp-session-id", "stateless"), headers

    async def list_tools(self, ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        self._caller(ctx)
        tools = [
            types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
            for t in CONTROL_TOOLS
        ]
        for spec in self.services.toolbox.specs():
            defined = spec.mcp_tool()
            tools.append(
                types.Tool(
                    name=defined["name"],
                    description=defined["description"],
                    input_schema=defined["inputSchema"],
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: ServerRequestContext[Any, Any], params: Any) -> types.CallToolResult:
        try:
            caller, session, headers = self._caller(ctx)
            body = await anyio.to_thread.run_sync(
                self._call, caller, session, headers, params.name, dict(params.arguments or {})
            )
        except (McpRefused, SessionError, ValidationError, ValueError) as exc:
            status = getattr(exc, "status", None)
            text = f"{status}: {exc}" if status else str(exc)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
        failed = body.get("outcome") not in (None, "ok")
        text = json.dumps(body, ensure_ascii=False, default=str)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)

    def _call(
        self, caller: Caller, session: str, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        if name == "open_episode":
            return self._open(caller, session, headers, OpenGatewayEpisode.model_validate(arguments))
        with self._lock:
            episode_id = self._episodes.get(session)
        if episode_id is None:
            raise McpRefused("404: no open episode on this MCP session; call open_episode first")
        if name == "escalate":
            event = self.sessions.escalate(
                episode_id,
                caller.id,
                str(arguments.get("reason", "")),
                recommendation=arguments.get("recommendation"),
                queue=arguments.get("queue"),
            )
            return {"episode_id": episode_id, "event_id": event.id, "seq": event.seq}
        if name == "close_episode":
            status = arguments.get("status", "completed")
            event = self.sessions.close(
                episode_id, caller.id, status, final_message=arguments.get("final_message")
            )
            with self._lock:
                self._episodes.pop(session, None)
            return {"episode_id": episode_id, "event_id": event.id, "seq": event.seq}
        result = self.sessions.call(episode_id, caller.id, name, arguments, None)
        return result.model_dump(mode="json")

    def _open(
        self, caller: Caller, session: str, headers: Mapping[str, str], body: OpenGatewayEpisode
    ) -> dict[str, Any]:
        problem = self.services.work_item_problem(body.work_item) if self.services.work_item_problem else None
        if problem is not None:
            raise McpRefused(f"422: work_item: {problem}")
        with self._lock:
            if session in self._episodes:
                raise McpRefused("409: this MCP session already works an episode; close it first")
        episode_id = new_id()
        self.services.traces.expect(episode_id, headers.get("traceparent"))
        self.sessions.open(
            episode_id,
            self.services.recorders(episode_id),
            body.work_item,
            model=body.model,
            max_steps=body.max_steps,
            owner=caller.id,
            payload_model=self.services.payload_model,
        )
        self.owners.add(episode_id, caller.id)
        with self._lock:
            self._episodes[session] = episode_id
        return {"episode_id": episode_id}


def mcp_app(
    services: BridgeServices,
    sessions: GatewaySessions,
    tokens: TokenTable,
    owners: EpisodeOwners,
    *,
    path: str = "/mcp",
) -> Starlette:
    """The MCP endpoint at `path` as an ASGI app over the gateway's sessions; its lifespan runs
    the SDK's session manager (`create_app` mounts it at `/mcp/` and runs that lifespan). The
    bridge checks bearer tokens itself; the SDK's localhost-only Host check is off, as the bridge
    listens wherever it is deployed."""
    bridge = McpBridge(services, sessions, tokens, owners)
    server: Server[Any] = Server(
        "loopline-bridge", on_list_tools=bridge.list_tools, on_call_tool=bridge.call_tool
    )
    return server.streamable_http_app(streamable_http_path=path, host="0.0.0.0")
