"""Producer keys: MACs over the canonical envelope, refusals by reason, rotation, keyring files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.audit.event_keys import (
    MAC_HEADER,
    EventKeyError,
    Keyring,
    KeyringFile,
    add_key,
    load_keyring,
    load_or_create_keyring,
    new_key,
)
from bridge.capture.outbox_rows import canonical_of
from schemas import EpisodeChain, to_json
from schemas.chain import canonical_bytes
from schemas.codec import to_structured
from tests.bridge.store.builders import typical_episode

SOURCE = "loopline://test/runtime"


def _doc() -> dict[str, object]:
    return to_structured(typical_episode("ep-1").events[2])


def test_an_event_macd_by_its_sources_key_verifies_and_every_attribute_is_covered() -> None:
    key = new_key(SOURCE)
    keyring, doc = Keyring([key]), _doc()
    assert keyring.verify(doc, key.headers_for(doc)) is None
    for name, value in (("seq", 7), ("episodeid", "ep-2"), ("prevhash", "1" * 64), ("data", {})):
        refusal = keyring.verify({**doc, name: value}, key.headers_for(doc))
        assert refusal is not None and refusal.code == "bad_mac", name


def test_unsigned_unknown_foreign_and_forged_events_are_refused_with_their_reason() -> None:
    ours, theirs = new_key(SOURCE), new_key("loopline://other")
    keyring, doc = Keyring([ours, theirs]), _doc()
    forged = [(k, b"0" * 64 if k == MAC_HEADER else v) for k, v in ours.headers_for(doc)]
    garbled = [
        (k, "\u00e9\udcff".encode("utf-8", "surrogatepass") if k == MAC_HEADER else v)
        for k, v in ours.headers_for(doc)
    ]
    cases = {
        "unsigned": [],
        "unknown_key": new_key(SOURCE).headers_for(doc),
        "foreign_source": theirs.headers_for(doc),
        "bad_mac": forged,
    }
    refusal = keyring.verify(doc, garbled)  # not even ASCII: refused, never a crash
    assert refusal is not None and refusal.code == "bad_mac"
    for code, headers in cases.items():
        refusal = keyring.verify(doc, headers)
        assert refusal is not None and refusal.code == code and refusal.reason


def test_across_a_rotation_the_new_key_signs_and_events_under_the_old_one_still_verify(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keys.json"
    old = add_key(path, SOURCE)
    doc = _doc()
    signed_before = old.headers_for(doc)
    watching = KeyringFile(path)
    new = add_key(path, SOURCE)
    keyring = watching.current()  # the verifier reads the changed file without a restart
    assert keyring.signing_key(SOURCE) == new != old
    assert keyring.verify(doc, signed_before) is None
    assert keyring.verify(doc, new.headers_for(doc)) is None
    retired = Keyring(k for k in keyring.keys if k != old)  # the old key dropped once all is archived
    refusal = retired.verify(doc, signed_before)
    assert refusal is not None and refusal.code == "unknown_key"


def test_a_keyring_file_is_made_once_with_a_key_per_producer_and_kept_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "event-keys.json"
    first = load_or_create_keyring(path, ["loopline://a", "loopline://b"])
    again = load_or_create_keyring(path, ["loopline://c"])
    assert [k.source for k in again.keys] == ["loopline://a", "loopline://b"]
    assert again.keys == first.keys and path.stat().st_mode & 0o077 == 0
    with pytest.raises(EventKeyError, match="no key for source 'loopline://c'"):
        again.signing_key("loopline://c")
    assert "secret" not in repr(first.keys[0])


def test_a_malformed_keyring_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text('{"keys": [{"id": "k", "source": "s"}]}')
    with pytest.raises(EventKeyError, match="is not a keyring"):
        load_keyring(path)
    with pytest.raises(EventKeyError, match="cannot read"):
        load_keyring(tmp_path / "missing.json")


def test_the_relay_macs_the_same_bytes_the_worker_checks_for_sealed_and_plain_rows() -> None:
    chain = EpisodeChain("ep-1", tenant="acme", source=SOURCE)
    sealed = chain.seal(typical_episode().events[1].data)
    for doc in (sealed.doc, to_json(sealed.event)):
        assert canonical_of(doc) == canonical_bytes(json.loads(doc))


def test_the_cli_rotates_a_producers_key_and_lists_which_key_signs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from loopline.cli import app

    path = tmp_path / "keys.json"
    for _ in range(2):
        added = CliRunner().invoke(
            app, ["audit", "event-key", "add", "--source", SOURCE, "--file", str(path)]
        )
        assert added.exit_code == 0, added.output
    listed = CliRunner().invoke(app, ["audit", "event-key", "list", "--file", str(path)])
    old, new = load_keyring(path).keys
    assert listed.exit_code == 0 and "secret" not in listed.output
    assert (
        f"{old.key_id}  {SOURCE}  verifies" in listed.output
        and f"{new.key_id}  {SOURCE}  signs" in listed.output
    )
