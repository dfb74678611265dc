"""`loopline up` makes the bridge's canary secret once per state folder, private to its owner."""

from __future__ import annotations

import stat
from pathlib import Path

from loopline.bridge.settings import BridgeSettings
from loopline.stack.state import StackLayout


def test_the_stack_makes_one_private_canary_secret_and_keeps_it(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path / "state")
    secret = layout.canary_secret()
    assert len(secret) >= 32 and layout.canary_secret() == secret
    assert stat.S_IMODE((layout.root / "canary-secret").stat().st_mode) == 0o600
    assert StackLayout(tmp_path / "other").canary_secret() != secret
    assert BridgeSettings(canary_secret=secret).canary_key() == secret.encode()  # type: ignore[arg-type]
    unset = BridgeSettings()
    assert unset.canary_key() != unset.canary_key()  # dev without one: random per process, never public
