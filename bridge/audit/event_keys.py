"""Per-event authentication: which producer wrote an event, by Ed25519 signatures under keys by id.

Every producer (the bridge's relay, the edge-case detector, the promotion workflow, the release
manager) holds a private key of its own, named by a key id and bound to the CloudEvents `source` it
writes as. It signs each event it produces: Ed25519 over the event's canonical JSON
(`schemas.chain.canonical_bytes`: every attribute but `hash`, so the stream id, `seq` and
`prevhash` are covered, plus `data`). The signature travels beside the event as two Kafka headers,
`loopline_keyid` and `loopline_mac` (the name kept from the HMAC keys this replaced); the stream
worker checks them before archiving. A verifier holds **public keys only**, so the process that
writes the archive cannot sign as any producer it verifies. The archive never holds a key.

A keyring is a JSON file `{"keys": [...]}` of entries `{"id", "source", "alg": "ed25519",
"private"}` (a producer's own file: base64 of the 32-byte seed) or `{"id", "source", "alg":
"ed25519", "public"}` (the verifiers' file: base64 of the raw 32-byte public key). An entry
`{"id", "source", "secret"}` is a legacy HMAC-SHA256 key (a shared secret: whoever verifies with it
can also forge with it); it still verifies the events it signed. A producer signs with the *last*
private key listed for its source; a verifier accepts every key listed. So rotation is: add a new
key for the source (`loopline audit event-key add`, which appends the private key to the producer's
file and its public key to the verifiers'), restart the producer, and drop the old key once the
worker has archived everything signed with it.
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
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from schemas.chain import canonical_bytes

KEY_ID_HEADER = "loopline_keyid"
MAC_HEADER = "loopline_mac"
_DOMAIN = b"loopline.event.mac.v1\n"
_SIGN_DOMAIN = b"loopline.event.sig.v1\n"
_SECRET_BYTES = 32
Algorithm = Literal["hmac-sha256", "ed25519"]
"""`ed25519`: a private key signs, its public key verifies; `hmac-sha256`: one shared secret (legacy)."""


class EventKeyError(ValueError):
    """A keyring that cannot be read, or a source without a key."""


@dataclass(frozen=True, repr=False)
class EventKey:
    """One producer's signing key: its id, the source it signs for, and the secret (an Ed25519 seed,
    or a legacy HMAC secret)."""

    key_id: str
    source: str
    secret: bytes
    algorithm: Algorithm = "hmac-sha256"

    def __repr__(self) -> str:  # never the secret, in logs or tracebacks
        return f"EventKey(key_id={self.key_id!r}, source={self.source!r}, algorithm={self.algorithm!r})"

    def mac(self, canonical: bytes) -> str:
        """The hex signature (Ed25519) or HMAC-SHA256 of an event's canonical bytes."""
        if self.algorithm == "ed25519":
            return self._private.sign(_SIGN_DOMAIN + canonical).hex()
        return hmac.new(self.secret, _DOMAIN + canonical, hashlib.sha256).hexdigest()

    @cached_property
    def _private(self) -> Ed25519PrivateKey:  # parsed once per key, not once per event
        return Ed25519PrivateKey.from_private_bytes(self.secret)

    def check(self, canonical: bytes, mac: str) -> bool:
        """Whether `mac` is this key's signature (or MAC) of `canonical`."""
        if self.algorithm == "ed25519":
            return self.public().check(canonical, mac)
        return hmac.compare_digest(self.mac(canonical).encode(), mac.encode("utf-8", "replace"))

    def public(self) -> PublicEventKey:
        """The verify-only half of an Ed25519 key (`EventKeyError` for a legacy HMAC key: it has none)."""
        if self.algorithm != "ed25519":
            raise EventKeyError(f"key {self.key_id} is a shared HMAC secret: it has no public half")
        public = self._private.public_key()
        return PublicEventKey(self.key_id, self.source, public.public_bytes(Encoding.Raw, PublicFormat.Raw))

    def stamp(self, structured: Mapping[str, Any]) -> tuple[str, str]:
        """(key id, MAC) of an event in structured form, as the archive keeps them."""
        return self.key_id, self.mac(canonical_bytes(structured))

    def headers(self, canonical: bytes) -> list[tuple[str, bytes]]:
        """The two headers that authenticate the event whose canonical bytes are `canonical`."""
        return [(KEY_ID_HEADER, self.key_id.encode()), (MAC_HEADER, self.mac(canonical).encode())]

    def headers_for(self, structured: Mapping[str, Any]) -> list[tuple[str, bytes]]:
        """`headers` of an event in structured form."""
        return self.headers(canonical_bytes(structured))


@dataclass(frozen=True)
class PublicEventKey:
    """A producer's Ed25519 public key: it verifies that producer's events and cannot sign any."""

    key_id: str
    source: str
    public_bytes: bytes
    algorithm: Algorithm = "ed25519"

    @cached_property
    def _public(self) -> Ed25519PublicKey:  # parsed once per key, not once per event
        return Ed25519PublicKey.from_public_bytes(self.public_bytes)

    def check(self, canonical: bytes, mac: str) -> bool:
        """Whether `mac` (hex) is the producer's signature of `canonical`."""
        try:
            signature = bytes.fromhex(mac)
            self._public.verify(signature, _SIGN_DOMAIN + canonical)
        except (ValueError, InvalidSignature):
            return False
        return True


VerifyingKey = EventKey | PublicEventKey


def new_key(source: str, key_id: str | None = None) -> EventKey:
    """A fresh random Ed25519 key for `source`."""
    return EventKey(
        key_id or f"k-{secrets.token_hex(6)}", source, secrets.token_bytes(_SECRET_BYTES), "ed25519"
    )


@dataclass(frozen=True)
class Refusal:
    """Why an event is not accepted as written by a named producer."""

    code: str
    """`unsigned`, `unknown_key`, `foreign_source` or `bad_mac`."""
    reason: str


class Keyring:
    """Every key a verifier accepts; the last private one per source is what that producer signs with."""

    def __init__(self, keys: Iterable[VerifyingKey]) -> None:
        self.keys: tuple[VerifyingKey, ...] = tuple(keys)
        self._by_id = {key.key_id: key for key in self.keys}
        if len(self._by_id) != len(self.keys):
            raise EventKeyError("two keys share one key id")

    def signing_key(self, source: str) -> EventKey:
        """The key `source` signs with now (its newest); `EventKeyError` when it has none."""
        for key in reversed(self.keys):
            if key.source == source and isinstance(key, EventKey):
                return key
        raise EventKeyError(
            f"the keyring has no signing key for source {source!r}; add one with `loopline audit event-key add`"
        )

    def public(self) -> Keyring:
        """The verify-only keyring of these keys (legacy HMAC keys, having no public half, stay out)."""
        return Keyring(
            key.public() if isinstance(key, EventKey) else key
            for key in self.keys
            if key.algorithm == "ed25519"
        )

    def can_sign(self) -> bool:
        """Whether any key here can sign (a verifier's keyring should not)."""
        return any(isinstance(key, EventKey) for key in self.keys)

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
        if not key.check(body, mac):
            return Refusal("bad_mac", f"the signature does not verify with key {key_id} (forged or altered)")
        return None

    def to_json(self) -> str:
        """The keyring file's text."""
        return json.dumps({"keys": [_entry(k) for k in self.keys]}, indent=2)

    @classmethod
    def from_json(cls, text: str, *, where: str = "keyring") -> Keyring:
        """Parse a keyring file's text."""
        try:
            keys = [_parse_entry(k) for k in json.loads(text)["keys"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise EventKeyError(
                f"{where} is not a keyring ({{'keys': [{{id, source, alg, private | public}}]}}): {exc}"
            ) from None
        if any(isinstance(k, EventKey) and k.algorithm == "hmac-sha256" and len(k.secret) < 16 for k in keys):
            raise EventKeyError(f"{where}: every secret must be at least 16 bytes")
        return cls(keys)


def _entry(key: VerifyingKey) -> dict[str, str]:
    named = {"id": key.key_id, "source": key.source}
    if isinstance(key, PublicEventKey):
        return {**named, "alg": "ed25519", "public": base64.b64encode(key.public_bytes).decode()}
    if key.algorithm == "ed25519":
        return {**named, "alg": "ed25519", "private": base64.b64encode(key.secret).decode()}
    return {**named, "secret": base64.b64encode(key.secret).decode()}


def _parse_entry(raw: Mapping[str, Any]) -> VerifyingKey:
    key_id, source = str(raw["id"]), str(raw["source"])
    algorithm = str(raw.get("alg", "hmac-sha256"))
    if algorithm == "hmac-sha256":
        return EventKey(key_id, source, base64.b64decode(str(raw["secret"]), validate=True))
    if algorithm != "ed25519":
        raise ValueError(f"key {key_id}: unknown alg {algorithm!r} (ed25519 or hmac-sha256)")
    if "private" in raw:
        seed = base64.b64decode(str(raw["private"]), validate=True)
        Ed25519PrivateKey.from_private_bytes(seed)  # 32 bytes, or ValueError
        return EventKey(key_id, source, seed, "ed25519")
    public = base64.b64decode(str(raw["public"]), validate=True)
    Ed25519PublicKey.from_public_bytes(public)
    return PublicEventKey(key_id, source, public)


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


def add_key(path: Path, source: str, public_file: Path | None = None) -> EventKey:
    """Rotate: append a new key for `source` to the producer's keyring at `path` (created if
    missing), and its public half to the verifiers' keyring `public_file` when given; it is the key
    `source` signs with from its next start. Writers of one file take turns (a lock file)."""
    key = new_key(source)
    _append(path, key)
    if public_file is not None:
        _append(public_file, key.public())
    return key


def _append(path: Path, key: VerifyingKey) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        keyring = load_keyring(path) if path.exists() else Keyring(())
        save_keyring(path, Keyring((*keyring.keys, key)))


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
