"""Per-event authentication: which producer may write which events, with HMAC-SHA256 keys by id.

Every producer (the bridge's relay, the edge-case detector, the promotion workflow) holds a secret
key of its own, named by a key id and bound to the CloudEvents `source` it writes as. It MACs each
event it produces: HMAC-SHA256 over the event's canonical JSON (`schemas.chain.canonical_bytes`:
every attribute but `hash`, so the stream id, `seq` and `prevhash` are covered, plus `data`). The
MAC travels beside the event as two Kafka headers, `loopline_keyid` and `loopline_mac`; the stream
worker checks them before archiving. The archive never holds a key.

A keyring is a JSON file `{"keys": [{"id", "source", "secret"}, ...]}` (secret: base64 of 32 random
bytes). A producer signs with the *last* key listed for its source; a verifier accepts every key
listed. So rotation is: add a new key for the source (`loopline audit event-key add`), restart the
producer (it now signs with the new key, while events signed with the old one still verify), and
drop the old key once the worker has archived everything signed with it.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.chain import canonical_bytes

KEY_ID_HEADER = "loopline_keyid"
MAC_HEADER = "loopline_mac"
_DOMAIN = b"loopline.event.mac.v1\n"
_SECRET_BYTES = 32


class EventKeyError(ValueError):
    """A keyring that cannot be read, or a source without a key."""


@dataclass(frozen=True, repr=False)
class EventKey:
    """One producer key: its id, the source it signs for, and the secret."""

    key_id: str
    source: str
    secret: bytes

    def __repr__(self) -> str:  # never the secret, in logs or tracebacks
        return f"EventKey(key_id={self.key_id!r}, source={self.source!r})"

    def mac(self, canonical: bytes) -> str:
        """The hex HMAC-SHA256 of an event's canonical bytes."""
        return hmac.new(self.secret, _DOMAIN + canonical, hashlib.sha256).hexdigest()

    def stamp(self, structured: Mapping[str, Any]) -> tuple[str, str]:
        """(key id, MAC) of an event in structured form, as the archive keeps them."""
        return self.key_id, self.mac(canonical_bytes(structured))

    def headers(self, canonical: bytes) -> list[tuple[str, bytes]]:
        """The two headers that authenticate the event whose canonical bytes are `canonical`."""
        return [(KEY_ID_HEADER, self.key_id.encode()), (MAC_HEADER, self.mac(canonical).encode())]

    def headers_for(self, structured: Mapping[str, Any]) -> list[tuple[str, bytes]]:
        """`headers` of an event in structured form."""
        return self.headers(canonical_bytes(structured))


def new_key(source: str, key_id: str | None = None) -> EventKey:
    """A fresh random key for `source`."""
    return EventKey(key_id or f"k-{secrets.token_hex(6)}", source, secrets.token_bytes(_SECRET_BYTES))


@dataclass(frozen=True)
class Refusal:
    """Why an event is not accepted as written by a named producer."""

    code: str
    """`unsigned`, `unknown_key`, `foreign_source` or `bad_mac`."""
    reason: str


class Keyring:
    """Every key a verifier accepts; the last one per source is what that producer signs with."""

    def __init__(self, keys: Iterable[EventKey]) -> None:
        self.keys = tuple(keys)
        self._by_id = {key.key_id: key for key in self.keys}
        if len(self._by_id) != len(self.keys):
            raise EventKeyError("two keys share one key id")

    def signing_key(self, source: str) -> EventKey:
        """The key `source` signs with now (its newest); `EventKeyError` when it has none."""
        for key in reversed(self.keys):
            if key.source == source:
                return key
        raise EventKeyError(
            f"the keyring has no key for source {source!r}; add one with `loopline audit event-key add`"
        )

    def verify(
        self,
        structured: Mapping[str, Any],
        headers: Sequence[tuple[str, bytes | str | None]],
        canonical: bytes | None = None,
    ) -> Refusal | None:
        """None when a key of the event's own source MACs it; else why not. `canonical`: the
        event's canonical bytes when the caller has them already (they are computed otherwise)."""
        key_id, mac = _header(headers, KEY_ID_HEADER), _header(headers, MAC_HEADER)
        if key_id is None or mac is None:
            return Refusal("unsigned", "the event carries no MAC (no loopline_keyid / loopline_mac header)")
        key = self._by_id.get(key_id)
        if key is None:
            return Refusal("unknown_key", f"key id {key_id[:64]!r} is not in the keyring")
        source = structured.get("source")
        if key.source != source:
            return Refusal(
                "foreign_source",
                f"key {key_id} belongs to {key.source!r}, the event claims source {source!r}",
            )
        body = canonical if canonical is not None else canonical_bytes(structured)
        if not hmac.compare_digest(
            key.mac(body).encode(), mac.encode("utf-8", "replace")
        ):  # bytes: any header
            return Refusal("bad_mac", f"the MAC does not verify with key {key_id} (forged or altered)")
        return None

    def to_json(self) -> str:
        """The keyring file's text."""
        keys = [
            {"id": k.key_id, "source": k.source, "secret": base64.b64encode(k.secret).decode()}
            for k in self.keys
        ]
        return json.dumps({"keys": keys}, indent=2)

    @classmethod
    def from_json(cls, text: str, *, where: str = "keyring") -> Keyring:
        """Parse a keyring file's text."""
        try:
            doc = json.loads(text)
            keys = [
                EventKey(str(k["id"]), str(k["source"]), base64.b64decode(str(k["secret"]), validate=True))
                for k in doc["keys"]
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise EventKeyError(
                f"{where} is not a keyring ({{'keys': [{{id, source, secret}}]}}): {exc}"
            ) from None
        if any(len(k.secret) < 16 for k in keys):
            raise EventKeyError(f"{where}: every secret must be at least 16 bytes")
        return cls(keys)


def load_keyring(path: Path) -> Keyring:
    """The keyring in `path`; `EventKeyError` naming the file when it is missing or malformed."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise EventKeyError(f"cannot read the event keyring {path}: {exc}") from None
    return Keyring.from_json(text, where=str(path))


def save_keyring(path: Path, keyring: Keyring) -> None:
    """Write `keyring` to `path` atomically, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(keyring.to_json())
    os.replace(partial, path)


def load_or_create_keyring(path: Path, sources: Iterable[str]) -> Keyring:
    """The keyring in `path`; when there is none, a new one with a key for each of `sources`
    (the embedded stack's way: every local process finds the same file under the state folder).
    Two processes creating it at once end up with the same file: the first link wins."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.new")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(Keyring(new_key(s) for s in dict.fromkeys(sources)).to_json())
        try:
            os.link(partial, path)  # fails if another process created it first
        except FileExistsError:
            pass
        finally:
            partial.unlink(missing_ok=True)
    return load_keyring(path)


def add_key(path: Path, source: str) -> EventKey:
    """Rotate: append a new key for `source` to the keyring at `path` (created if missing); it is
    the key `source` signs with from its next start. Writers of one file take turns (a lock file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        keyring = load_keyring(path) if path.exists() else Keyring(())
        key = new_key(source)
        save_keyring(path, Keyring((*keyring.keys, key)))
    return key


class KeyringFile:
    """A keyring read from its file, read again whenever the file changed: a key added for a new
    producer, or by a rotation, is accepted without restarting the verifier."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._keyring = Keyring(())
        self.current()

    def current(self) -> Keyring:
        """The keyring as the file holds it now (one `stat` when unchanged)."""
        try:
            info = self.path.stat()
        except OSError as exc:
            raise EventKeyError(f"cannot read the event keyring {self.path}: {exc}") from None
        stamp = (info.st_mtime_ns, info.st_size)
        if stamp != self._stamp:
            self._keyring, self._stamp = load_keyring(self.path), stamp
        return self._keyring


def mac_of(headers: Sequence[tuple[str, bytes | str | None]]) -> tuple[str, str] | None:
    """(key id, MAC) from a message's headers, or None when it carries none."""
    key_id, mac = _header(headers, KEY_ID_HEADER), _header(headers, MAC_HEADER)
    return None if key_id is None or mac is None else (key_id[:128], mac[:128])


def verify_stored(
    keyring: Keyring, structured: Mapping[str, Any], mac: tuple[str, str] | None
) -> Refusal | None:
    """`Keyring.verify` of an archived event and the MAC stored beside it (an audit's check)."""
    headers = [] if mac is None else [(KEY_ID_HEADER, mac[0]), (MAC_HEADER, mac[1])]
    return keyring.verify(structured, headers)


def _header(headers: Sequence[tuple[str, bytes | str | None]], name: str) -> str | None:
    found: str | None = None
    for key, value in headers:
        if key == name and value is not None:
            found = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    return found
