"""Fixtures for the adapter tests: the RCM seed world, a sim toolbox, and the live sandbox server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.rcm import RCM_TOOLS, SimBackend, World, seed_world
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolResult

SANDBOX_ADMIN_TOKEN = "test-sandbox-admin-token"
"""The admin token of the session's sandbox (`sandbox_url`)."""


@pytest.fixture
def world() -> World:
    return seed_world()


@pytest.fixture
def sim(world: World) -> SimBackend:
    return SimBackend(world)


@pytest.fixture
def toolbox(sim: SimBackend) -> Toolbox:
    return Toolbox(RCM_TOOLS, sim)


Call = Callable[..., ToolResult]


@pytest.fixture
def call(toolbox: Toolbox) -> Call:
    """`call("tool", arg=value)`: one tool call through the sim toolbox."""
    counter = iter(range(1, 10_000))

    def _call(name: str, **arguments: Any) -> ToolResult:
        return toolbox.call(ToolCall(call_id=f"c{next(counter)}", name=name, arguments=arguments))

    return _call


@pytest.fixture(scope="session")
def sandbox_url() -> Iterator[str]:
    """A real sandbox server (uvicorn, SQLite file) on a free loopback port, for the session."""
    from adapters.rcm.sandbox import SandboxConfig, serve_in_thread

    with serve_in_thread(SandboxConfig(admin_token=SANDBOX_ADMIN_TOKEN)) as url:
        yield url
