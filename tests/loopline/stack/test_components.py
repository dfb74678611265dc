"""Command lines: loopback only, nothing phoned home, and nothing inherited that changes what starts."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from loopline.stack import components
from loopline.stack.settings import StackPorts
from loopline.stack.state import S3Credentials, StackLayout

CREDS = S3Credentials(access_key_id="id", secret_access_key="secret")


def test_seaweedfs_binds_loopback_creates_the_bucket_and_sends_no_telemetry(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    spec = components.seaweedfs(Path("/bin/weed"), layout, StackPorts(), CREDS)

    assert "-ip.bind=127.0.0.1" in spec.argv and "-bucket=tansu" in spec.argv
    assert "-master.telemetry=false" in spec.argv
    assert spec.env["AWS_ACCESS_KEY_ID"] == "id"


def test_seaweedfs_forgets_the_options_an_earlier_run_saved(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    saved = layout.data_dir / "seaweedfs" / "mini.options"
    saved.parent.mkdir(parents=True)
    saved.write_text("s3.port.grpc=1234\n")

    components.seaweedfs(Path("/bin/weed"), layout, StackPorts(), CREDS)

    assert not saved.exists()


def test_tansu_on_s3_signs_with_the_folder_credentials_and_ignores_the_shell_aws_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT", "https://s3.amazonaws.com")
    monkeypatch.setenv("AWS_PROFILE", "production")
    ports = StackPorts(s3=18333, kafka=19092)

    spec = components.tansu(Path("/bin/tansu"), ports, "s3", CREDS)

    assert "--storage-engine=s3://tansu/" in spec.argv
    assert "--listener-url=tcp://127.0.0.1:19092" in spec.argv
    assert spec.env["AWS_ENDPOINT"] == "http://127.0.0.1:18333"
    assert "AWS_PROFILE" not in spec.env
    assert spec.stop_signal == signal.SIGINT


def test_tansu_on_memory_needs_no_object_store() -> None:
    spec = components.tansu(Path("/bin/tansu"), StackPorts(), "memory", None)

    assert "--storage-engine=memory://tansu/" in spec.argv
    assert not any(key.startswith("AWS_") for key in spec.env)


def test_temporal_keeps_its_state_in_a_sqlite_file_in_the_state_folder(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)

    with_ui = components.temporal(Path("/bin/temporal"), layout, StackPorts(), ui=True)
    headless = components.temporal(Path("/bin/temporal"), layout, StackPorts(), ui=False)

    assert str(layout.data_dir / "temporal.db") in with_ui.argv
    assert with_ui.argv[with_ui.argv.index("--ip") + 1] == "127.0.0.1"
    assert "--ui-port" in with_ui.argv and "--headless" in headless.argv
