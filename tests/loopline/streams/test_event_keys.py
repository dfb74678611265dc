"""Where each process finds its event keys: the embedded stack's set is made by `loopline up`, each
role's private key in a file of its own and the verifiers' public file; a process never makes the
file it was told to read, and refuses to start saying where it looked."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.audit.event_keys import EventKey, EventKeyError, Keyring, load_keyring, new_key, save_keyring
from bridge.audit.scopes import SCOPES
from loopline.streams.event_keys import (
    ensure_keys,
    public_file,
    role_file,
    role_sources,
    signing_key,
    verifying_keyring,
)


def test_the_embedded_set_has_a_private_file_per_role_and_one_public_file_made_once(tmp_path: Path) -> None:
    folder = tmp_path / ".loopline" / "keys"
    public = ensure_keys(folder, {"bridge": ["loopline://bridge/test"]})
    assert public == public_file(folder)
    roles = role_sources()
    assert set(roles) == set(SCOPES.roles())  # every scoped role has a key, and only those
    listed = load_keyring(public)
    assert not listed.can_sign()
    for role, sources in roles.items():
        own = load_keyring(role_file(role, folder))
        assert {k.source for k in own.keys} == set(sources) | (
            {"loopline://bridge/test"} if role == "bridge" else set()
        )
        assert all(k.algorithm == "ed25519" for k in own.keys)
        assert {k.key_id for k in own.keys} <= {k.key_id for k in listed.keys}
        assert all(SCOPES.role_of(k.source).role == role for k in own.keys)  # type: ignore[union-attr]
        assert role_file(role, folder).stat().st_mode & 0o077 == 0
    before = {p.name: p.read_text() for p in folder.iterdir() if p.suffix == ".json"}
    ensure_keys(folder, {"bridge": ["loopline://bridge/test"]})
    assert {p.name: p.read_text() for p in folder.iterdir() if p.suffix == ".json"} == before


def test_a_missing_signing_key_file_or_key_is_refused_naming_where_it_looked(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere" / "bridge.json"
    with pytest.raises(
        EventKeyError, match=rf"no event signing key file at {path} \(LOOPLINE_BRIDGE_EVENT_KEYS_FILE\)"
    ):
        signing_key(path, "loopline://bridge/rcm", variable="LOOPLINE_BRIDGE_EVENT_KEYS_FILE")
    ensure_keys(tmp_path / "keys")
    with pytest.raises(
        EventKeyError, match=r"bridge.json \(V\): .*no signing key for source 'loopline://bridge/x'"
    ):
        signing_key(role_file("bridge", tmp_path / "keys"), "loopline://bridge/x", variable="V")
    assert not path.exists()  # nothing made on the way


def test_a_verifier_refuses_a_missing_keyring_and_one_that_could_sign(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "public.json"
    with pytest.raises(EventKeyError, match=rf"no event keyring at {missing} \(LOOPLINE_EVENT_KEYS_FILE\)"):
        verifying_keyring(missing, variable="LOOPLINE_EVENT_KEYS_FILE")
    assert not missing.parent.exists()
    folder = tmp_path / "keys"
    ensure_keys(folder)
    assert not verifying_keyring(public_file(folder), variable="V").current().can_sign()
    mixed = tmp_path / "mixed.json"
    save_keyring(mixed, Keyring((*load_keyring(public_file(folder)).keys, new_key("loopline://bridge/rcm"))))
    with pytest.raises(EventKeyError, match="holds private or shared keys"):
        verifying_keyring(mixed, variable="V")


def test_a_legacy_hmac_keyring_is_refused_saying_how_to_make_the_new_keys(tmp_path: Path) -> None:
    legacy = tmp_path / "event-keys.json"  # what `loopline up` made before producers had keys of their own
    save_keyring(legacy, Keyring([EventKey("k-old", "loopline://bridge/rcm", b"s" * 32, "hmac-sha256")]))
    with pytest.raises(EventKeyError) as refused:
        verifying_keyring(legacy, variable="LOOPLINE_EVENT_KEYS_FILE")
    message = str(refused.value)
    assert f"{legacy} (LOOPLINE_EVENT_KEYS_FILE) is a legacy HMAC keyring" in message
    assert "loopline://bridge/rcm" in message and "`loopline up`" in message
    assert (
        "loopline audit event-key add" in message
        and "set LOOPLINE_EVENT_KEYS_FILE to the public file" in message
    )
    public = ensure_keys(tmp_path / "keys")  # what the message says to do, then the verifier starts
    assert not verifying_keyring(public, variable="LOOPLINE_EVENT_KEYS_FILE").current().can_sign()
