"""The PHI key: refused when missing or a placeholder outside dev, derived into separate keys."""

from __future__ import annotations

import base64
import secrets
from pathlib import Path

import pytest

from bridge.capture import CaptureConfig, CaptureService
from bridge.phi import PhiKeyError, PhiKeys, parse_master_key


@pytest.mark.parametrize("environment", ["staging", "production"])
@pytest.mark.parametrize("key", [None, "", "changethis", "CHANGEME", "secret"])
def test_a_missing_or_placeholder_key_is_refused_outside_development(
    key: str | None, environment: str
) -> None:
    with pytest.raises(PhiKeyError):
        parse_master_key(key, environment=environment)  # type: ignore[arg-type]


def test_a_constant_byte_key_is_refused_outside_development() -> None:
    with pytest.raises(PhiKeyError, match="constant"):
        parse_master_key(base64.b64encode(bytes(32)).decode(), environment="production")


@pytest.mark.parametrize("environment", ["dev", "test", "production"])
@pytest.mark.parametrize("key", ["not base64 !!", base64.b64encode(b"short").decode()])
def test_a_malformed_or_short_key_is_refused_everywhere(key: str, environment: str) -> None:
    with pytest.raises(PhiKeyError):
        parse_master_key(key, environment=environment)  # type: ignore[arg-type]


def test_development_runs_without_a_key_on_a_fixed_development_key() -> None:
    assert parse_master_key(None, environment="dev") == parse_master_key("changethis", environment="test")


@pytest.mark.parametrize(
    "encode", [lambda b: b.hex(), lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")]
)
def test_hex_and_base64_keys_are_accepted(encode: object) -> None:
    raw = secrets.token_bytes(32)
    assert parse_master_key(encode(raw), environment="production") == raw  # type: ignore[operator]


def test_derived_keys_differ_from_each_other_and_per_tenant() -> None:
    keys = PhiKeys.from_master(secrets.token_bytes(32))
    assert keys.token_root != keys.vault_key
    assert keys.tenant_token_key("a") != keys.tenant_token_key("b")
    assert repr(keys) == f"PhiKeys(key_id={keys.key_id!r})"  # key bytes never reach a log line


def test_a_capture_service_will_not_open_in_production_without_a_key(tmp_path: Path) -> None:
    config = CaptureConfig(
        tenant="clinic-a", outbox_path=tmp_path / "o.db", vault_url=f"sqlite:///{tmp_path / 'v.db'}"
    )
    with pytest.raises(PhiKeyError):
        CaptureService.open(config)
    assert not (tmp_path / "o.db").exists()  # refused before anything was created


def test_the_vault_may_not_share_the_outbox_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="vault"):
        CaptureConfig(tenant="a", outbox_path=tmp_path / "o.db", vault_url=f"sqlite:///{tmp_path / 'o.db'}")
