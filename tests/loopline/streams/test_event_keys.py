"""Where producers find their event MAC keys: made under the state folder in dev, required elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.audit.event_keys import EventKeyError, load_keyring
from loopline.streams.event_keys import EMBEDDED_PRODUCERS, ensure_keyring


def test_dev_makes_the_keyring_with_a_key_per_embedded_producer_and_adds_a_new_source(tmp_path: Path) -> None:
    path = tmp_path / ".loopline" / "event-keys.json"
    ensure_keyring(path, ["loopline://bridge/test"])
    keyring = load_keyring(path)
    assert [k.source for k in keyring.keys] == [*EMBEDDED_PRODUCERS, "loopline://bridge/test"]
    assert ensure_keyring(path, ["loopline://bridge/test"]).keys == keyring.keys  # made once


def test_outside_dev_a_missing_keyring_or_key_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "event-keys.json"
    with pytest.raises(
        EventKeyError, match=r"no event keyring at .*event-key add --source loopline://bridge/rcm"
    ):
        ensure_keyring(path, ["loopline://bridge/rcm"], add_missing=False)
    ensure_keyring(path)
    with pytest.raises(EventKeyError, match="no key for source 'loopline://bridge/other'"):
        ensure_keyring(path, ["loopline://bridge/other"], add_missing=False)
