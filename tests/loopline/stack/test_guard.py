"""Outside dev/test a deployable refuses to start on the one-machine defaults, without a mounted
keyring, or with a dev token; the message names the variable to fix."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import ValidationError

from loopline.bridge.settings import DEV_TOKENS, BridgeSettings
from loopline.streams.settings import StreamsSettings
from workflows.settings import WorkflowsSettings

REAL_TOKEN = hashlib.sha256(b"a-random-operator-token").hexdigest()


@pytest.fixture
def keyring(tmp_path: Path) -> Path:
    path = tmp_path / "event-keys.json"
    path.write_text("{}")
    return path


def _production(monkeypatch: pytest.MonkeyPatch, keyring: Path, **env: str) -> None:
    for name, value in {
        "LOOPLINE_BRIDGE_ENVIRONMENT": "production", "LOOPLINE_ENVIRONMENT": "production",
        "LOOPLINE_BRIDGE_TOKEN_DIGESTS": f'{{"{REAL_TOKEN}": "operator"}}',
        "LOOPLINE_BRIDGE_VAULT_KEY": "q" * 43, "LOOPLINE_BRIDGE_DB_URL": "postgresql+psycopg://db/loopline",
        "LOOPLINE_BRIDGE_STATE_DIR": "/var/lib/loopline/bridge", "LOOPLINE_BRIDGE_EVENT_KEYS_FILE": str(keyring),
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": "kafka:9093", "LOOPLINE_KAFKA_EMBEDDED": "false",
        "LOOPLINE_DB_URL": "postgresql+psycopg://db/loopline", "LOOPLINE_EVENT_KEYS_FILE": str(keyring),
        "LOOPLINE_DETECTOR_KEY_FILE": str(keyring), "LOOPLINE_BRIDGE_CHECKPOINT_KEY_FILE": str(keyring),
        "LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE": str(keyring),
        "LOOPLINE_TEMPORAL_ADDRESS": "temporal-frontend:7233",
        "LOOPLINE_BRIDGE_CANARY_SECRET": "c" * 43, **env,
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)


def test_every_deployable_starts_in_production_with_everything_given(
    monkeypatch: pytest.MonkeyPatch, keyring: Path
) -> None:
    _production(monkeypatch, keyring)
    assert BridgeSettings().environment == "production"
    assert StreamsSettings().db_url.startswith("postgresql")
    assert WorkflowsSettings().temporal_address == "temporal-frontend:7233"


@pytest.mark.parametrize(
    ("build", "unset", "named"),
    [
        (BridgeSettings, "LOOPLINE_BRIDGE_DB_URL", "LOOPLINE_BRIDGE_DB_URL"),
        (BridgeSettings, "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS", "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS"),
        (BridgeSettings, "LOOPLINE_KAFKA_EMBEDDED", "LOOPLINE_KAFKA_EMBEDDED"),
        (BridgeSettings, "LOOPLINE_BRIDGE_CANARY_SECRET", "LOOPLINE_BRIDGE_CANARY_SECRET"),
        (StreamsSettings, "LOOPLINE_DB_URL", "LOOPLINE_DB_URL"),
        (StreamsSettings, "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS", "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS"),
        (WorkflowsSettings, "LOOPLINE_TEMPORAL_ADDRESS", "LOOPLINE_TEMPORAL_ADDRESS"),
        (WorkflowsSettings, "LOOPLINE_DB_URL", "LOOPLINE_DB_URL"),
    ],
)
def test_a_missing_setting_outside_dev_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, keyring: Path, build: type, unset: str, named: str
) -> None:
    _production(monkeypatch, keyring)
    monkeypatch.delenv(unset)
    with pytest.raises(ValidationError, match=named):
        build()


def test_the_same_defaults_are_fine_in_dev(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert StreamsSettings().environment == "dev" and WorkflowsSettings().environment == "dev"
    assert BridgeSettings().environment == "dev"


def test_a_keyring_that_is_not_mounted_is_refused(monkeypatch: pytest.MonkeyPatch, keyring: Path) -> None:
    _production(monkeypatch, keyring)
    keyring.unlink()
    with pytest.raises(ValidationError, match=r"LOOPLINE_EVENT_KEYS_FILE .* does not exist"):
        StreamsSettings()
    with pytest.raises(ValidationError, match="LOOPLINE_BRIDGE_EVENT_KEYS_FILE"):
        BridgeSettings()


def test_a_dev_token_outside_dev_is_refused(monkeypatch: pytest.MonkeyPatch, keyring: Path) -> None:
    dev = hashlib.sha256(next(iter(DEV_TOKENS)).encode()).hexdigest()
    _production(monkeypatch, keyring, LOOPLINE_BRIDGE_TOKEN_DIGESTS=f'{{"{dev}": "agent"}}')
    with pytest.raises(ValidationError, match="digest of a dev token"):
        BridgeSettings()


def test_production_refuses_the_fingerprint_check_off(monkeypatch: pytest.MonkeyPatch, keyring: Path) -> None:
    _production(monkeypatch, keyring, LOOPLINE_BRIDGE_RELEASE_VERIFY_FINGERPRINTS="false")
    with pytest.raises(ValidationError, match="LOOPLINE_BRIDGE_RELEASE_VERIFY_FINGERPRINTS"):
        BridgeSettings()


def test_a_short_canary_secret_is_refused(monkeypatch: pytest.MonkeyPatch, keyring: Path) -> None:
    _production(monkeypatch, keyring, LOOPLINE_BRIDGE_CANARY_SECRET="short")
    with pytest.raises(ValidationError, match="16 characters"):
        BridgeSettings()


def test_production_requires_checkpoint_keys_for_the_bridge_and_the_detector(
    monkeypatch: pytest.MonkeyPatch, keyring: Path, tmp_path: Path
) -> None:
    _production(monkeypatch, keyring)
    missing = tmp_path / "nowhere.key"
    monkeypatch.setenv("LOOPLINE_BRIDGE_CHECKPOINT_KEY_FILE", str(missing))
    with pytest.raises(ValidationError, match="LOOPLINE_BRIDGE_CHECKPOINT_KEY_FILE"):
        BridgeSettings()
    monkeypatch.setenv("LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE", str(missing))
    with pytest.raises(
        ValueError, match=rf"no checkpoint key at {missing} \(LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE\)"
    ):
        StreamsSettings().streams_config()
