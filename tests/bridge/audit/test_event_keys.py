"""Producer keys: Ed25519 signatures over the canonical envelope, refusals by reason, rotation,
public keyrings that cannot sign, keyring files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.audit.event_keys import (
    MAC_HEADER,
    EventKey,
    EventKeyError,
    Keyring,
    KeyringFile,
    add_key,
    load_keyring,
    new_key,
    save_keyring,
)
from bridge.capture.outbox_rows import canonical_of
from schemas import EpisodeChain, to_json
from schemas.chain import canonical_bytes
from schemas.codec import to_structured
from tests.bridge.store.builders import typical_episode

SOURCE = "loopline://bridge/test"


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


def test_a_public_keyring_verifies_every_producer_and_cannot_sign_for_any(tmp_path: Path) -> None:
    private = [new_key(SOURCE), new_key("loopline://workflows/promotion")]
    path = tmp_path / "state" / "public.json"
    save_keyring(path, Keyring(private).public())
    public, doc = load_keyring(path), _doc()
    assert path.stat().st_mode & 0o077 == 0 and "private" not in path.read_text()
    assert not public.can_sign() and Keyring(private).can_sign()
    for key in private:
        assert (
            public.verify({**doc, "source": key.source}, key.headers_for({**doc, "source": key.source}))
            is None
        )
        with pytest.raises(EventKeyError, match="no signing key for source"):
            public.signing_key(key.source)
    assert "secret" not in repr(private[0]) and private[0].secret.hex() not in repr(private[0])


def test_a_legacy_hmac_key_still_verifies_what_it_signed_and_has_no_public_half() -> None:
    legacy = EventKey("k-old", SOURCE, b"0123456789abcdef0123456789abcdef")
    doc = _doc()
    assert Keyring([legacy]).verify(doc, legacy.headers_for(doc)) is None
    assert Keyring([legacy]).public().keys == ()
    with pytest.raises(EventKeyError, match="no public half"):
        legacy.public()


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

    path, public = tmp_path / "bridge.json", tmp_path / "public.json"
    for _ in range(2):
        added = CliRunner().invoke(
            app,
            [
                "audit",
                "event-key",
                "add",
                "--source",
                SOURCE,
                "--file",
                str(path),
                "--public-file",
                str(public),
            ],
        )
        assert added.exit_code == 0, added.output
    listed = CliRunner().invoke(app, ["audit", "event-key", "list", "--public-file", str(path)])
    old, new = load_keyring(path).keys
    assert listed.exit_code == 0 and "secret" not in listed.output and "private" not in listed.output
    assert (
        f"{old.key_id}  {SOURCE}  ed25519  verifies" in listed.output
        and f"{new.key_id}  {SOURCE}  ed25519  signs" in listed.output
    )
    assert [k.key_id for k in load_keyring(public).keys] == [old.key_id, new.key_id]
    assert not load_keyring(public).can_sign()
    outsider = CliRunner().invoke(
        app, ["audit", "event-key", "add", "--source", "loopline://attacker", "--file", str(path)]
    )
    assert outsider.exit_code == 1 and "no named producer" in outsider.output
