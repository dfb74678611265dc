"""A real bridge API server over the sim RCM world, a capture outbox and a SQLite archive."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from adapters.serving import serve_in_thread
from bridge.api.app import create_app
from bridge.api.auth import Identity, Role, TokenTable
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import ArchiveRecord, SqlEventArchive
from engine import EpisodeConfig, Policy, ScriptedPolicy, act, call, say
from loopline.bridge.app import rcm_services
from schemas.codec import from_structured

TOKENS: dict[str, Role | Identity] = {
    "agent-token": Role.AGENT,
    "other-agent-token": Role.AGENT,
    "integration-token": Role.INTEGRATION,
    "reviewer-token": Identity(Role.REVIEWER, "ana"),
    "other-reviewer-token": Identity(Role.REVIEWER, "bo"),
    "operator-token": Role.OPERATOR,
}


@dataclass
class Bridge:
    url: str
    capture: CaptureService
    archive: SqlEventArchive

    def client(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def project(self) -> None:
        """Feed the outbox into the archive, as the Kafka relay and projector do in production."""
        for row in self.capture.outbox.rows():
            event = from_structured(row.structured())
            self.archive.append([ArchiveRecord.of(event)])


def _reference_script(messages: object) -> object:
    # Reads the remittance, then closes with a message: enough to exercise the episode route.
    history = str(messages)
    if "get_remittance" not in history:
        return act(call("get_remittance", {"claim_id": "CLM-1001"}))
    return say("Reviewed the remittance; nothing to do.")


@contextmanager
def serve_bridge(
    tmp_path: Path, policy: Policy | None = None, *, max_episodes_per_caller: int = 16
) -> Iterator[Bridge]:
    """A bridge API server over the sim world; `policy` defaults to a short scripted one."""
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
        policy or ScriptedPolicy(_reference_script),  # type: ignore[arg-type]
        EpisodeConfig(max_steps=6),
        archive,
    )
    services.max_episodes_per_caller = max_episodes_per_caller
    with serve_in_thread(create_app(services, TokenTable.from_tokens(TOKENS)), name="bridge-api") as url:
        yield Bridge(url, capture, archive)
    capture.close()


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[Bridge]:
    with serve_bridge(tmp_path) as served:
        yield served
