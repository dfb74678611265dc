"""No silent keyrings: a process that cannot find the key file it was configured with (or the
default one) refuses to start, saying where it looked, and makes nothing on the way. (A worker that
made its own keyring would refuse every producer's events; a producer that made its own key would
have every event it writes refused.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.audit.event_keys import EventKeyError
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.kafka.publisher import PROMOTION_SOURCE, signed_publisher
from loopline.kafka.settings import KafkaSettings
from loopline.streams.event_keys import ensure_keys, public_file

REPO = Path(__file__).resolve().parents[3]


def _worker(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LOOPLINE_")}
    argv = [sys.executable, "-c", "from loopline.cli import main; main()", "streams", "worker"]
    return subprocess.run(
        argv, cwd=cwd, env={**clean, "PYTHONPATH": str(REPO), **env}, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def test_a_worker_started_in_another_folder_refuses_naming_the_keyring_it_looked_for(tmp_path: Path) -> None:
    done = _worker(tmp_path)
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, out
    assert f"no event keyring at {tmp_path / '.loopline' / 'keys' / 'public.json'}" in out
    assert "LOOPLINE_EVENT_KEYS_FILE" in out
    assert not (tmp_path / ".loopline" / "keys").exists()  # it made none of its own


def test_a_worker_with_the_public_keyring_but_no_detector_key_refuses_naming_it(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    ensure_keys(keys)
    (keys / "detector.json").unlink()
    done = _worker(tmp_path, LOOPLINE_EVENT_KEYS_FILE=str(public_file(keys)))
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1 and "LOOPLINE_DETECTOR_KEY_FILE" in out, out
    assert not (keys / "detector.json").exists()


def test_a_bridge_without_its_key_file_refuses_to_start_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "mounted" / "bridge.json"
    settings = BridgeSettings(
        state_dir=tmp_path / "bridge", db_url=f"sqlite:///{tmp_path / 'archive.db'}", relay_process=False,
        kafka=KafkaSettings(bootstrap_servers="127.0.0.1:1"), event_keys_file=missing,
    )  # fmt: skip
    with pytest.raises(
        EventKeyError, match=rf"no event signing key file at {missing} \(LOOPLINE_BRIDGE_EVENT_KEYS_FILE\)"
    ):
        build_bridge(settings)
    assert not missing.parent.exists()


def test_a_promotion_publisher_without_its_key_file_refuses_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "promotion.json"
    monkeypatch.setenv("LOOPLINE_PROMOTION_KEY_FILE", str(missing))
    with pytest.raises(EventKeyError, match=rf"{missing} \(LOOPLINE_PROMOTION_KEY_FILE\)"):
        signed_publisher(PROMOTION_SOURCE, KafkaSettings(bootstrap_servers="127.0.0.1:1"), "t")
    assert not missing.exists()
