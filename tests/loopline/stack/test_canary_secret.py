"""`loopline up` makes the bridge's canary secret once per state folder, private to its owner."""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

from loopline.bridge.settings import BridgeSettings
from loopline.stack.state import Endpoints, StackLayout, StackState


def test_the_stack_makes_one_private_canary_secret_and_keeps_it(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path / "state")
    secret = layout.canary_secret()
    assert len(secret) >= 32 and layout.canary_secret() == secret
    assert stat.S_IMODE((layout.root / "canary-secret").stat().st_mode) == 0o600
    assert StackLayout(tmp_path / "other").canary_secret() != secret
    assert BridgeSettings(canary_secret=secret).canary_key() == secret.encode()  # type: ignore[arg-type]
    unset = BridgeSettings()
    assert unset.canary_key() != unset.canary_key()  # dev without one: random per process, never public


def test_the_stack_env_hands_the_bridge_its_canary_secret_readable_by_the_owner_only(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path / "state")
    endpoints = Endpoints(bootstrap_servers="127.0.0.1:1", temporal_address="127.0.0.1:2")
    layout.root.mkdir(parents=True)
    layout.env_file.write_text("stale\n")
    layout.env_file.chmod(0o644)
    layout.write(StackState(mode="embedded", started_at=datetime.now(UTC), endpoints=endpoints))
    lines = dict(line.split("=", 1) for line in layout.env_file.read_text().splitlines())
    assert lines["LOOPLINE_BRIDGE_CANARY_SECRET"] == layout.canary_secret()
    assert stat.S_IMODE(layout.env_file.stat().st_mode) == 0o600
