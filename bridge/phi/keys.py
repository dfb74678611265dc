"""The PHI master key: parse it, refuse placeholders outside development, derive the working keys.

One master secret (32+ random bytes, base64 or hex in configuration) yields, through HKDF with
distinct labels, two keys that are never used for each other's job:

- the token key, from which each tenant gets its own HMAC key, so the same value tokenises
  differently per tenant and a token seen in one tenant's data says nothing about another's;
- the vault key (AES-256-GCM) that encrypts raw PHI values at rest.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
from dataclasses import dataclass, field
from typing import Literal

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

Environment = Literal["dev", "test", "staging", "production"]
"""Where the process runs; only `dev` and `test` may go without a real key."""

MIN_KEY_BYTES = 32
_DEV_MASTER = hashlib.sha256(b"loopline development-only PHI key; never protects real data").digest()
_PLACEHOLDERS = frozenset(
    {
        "",
        "changethis",
        "changeme",
        "change-me",
        "change_me",
        "secret",
        "dev",
        "test",
        "placeholder",
        "xxx",
        "todo",
        "none",
        "null",
        "key",
        "password",
    }
)
_log = logging.getLogger(__name__)


class PhiKeyError(ValueError):
    """The PHI key is missing, a placeholder or malformed where a real one is required."""


def _decode(text: str) -> bytes | None:
    """Key bytes from hex (64+ chars) or base64 / base64url; None when it is neither."""
    stripped = text.strip()
    if len(stripped) >= 2 * MIN_KEY_BYTES and len(stripped) % 2 == 0:
        try:
            return bytes.fromhex(stripped)
        except ValueError:
            pass
    padded = stripped + "=" * (-len(stripped) % 4)
    for decode in (base64.urlsafe_b64decode, base64.b64decode):
        try:
            return decode(padded.encode())
        except (binascii.Error, ValueError):
            continue
    return None


def _weak(raw: bytes) -> bool:
    # A key of one or two distinct bytes (zeros, 'AAAA…') is what a template leaves behind.
    return len(set(raw)) <= 2


def parse_master_key(text: str | None, *, environment: Environment) -> bytes:
    """The master key bytes; a fixed development key in `dev`/`test` when none is given.

    Raises `PhiKeyError` outside `dev`/`test` for a missing, placeholder, short or malformed key:
    a capture process that would write PHI tokens with a guessable key must not start.
    """
    lenient = environment in ("dev", "test")
    if text is None or text.strip().lower() in _PLACEHOLDERS:
        if lenient:
            _log.warning("PHI key missing or a placeholder; using the development key (%s)", environment)
            return _DEV_MASTER
        raise PhiKeyError(
            "the PHI vault key is missing or a placeholder; set a random 32-byte key "
            "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`) "
            f"before running with environment={environment!r}"
        )
    raw = _decode(text)
    if raw is None or len(raw) < MIN_KEY_BYTES:
        # A typo in a real key is an error everywhere: silently swapping in another key would
        # make tokens and ciphertexts unreadable with the key the operator thinks is in use.
        raise PhiKeyError(f"the PHI vault key must be hex or base64 of at least {MIN_KEY_BYTES} random bytes")
    if _weak(raw):
        if lenient:
            _log.warning("PHI key is not random (a template value); using the development key")
            return _DEV_MASTER
        raise PhiKeyError("the PHI vault key is a constant byte pattern, not a random key")
    return raw


def _hkdf(master: bytes, label: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label).derive(master)


@dataclass(frozen=True)
class PhiKeys:
    """The keys derived from one master key."""

    token_root: bytes = field(repr=False)
    """Root of the per-tenant HMAC keys."""
    vault_key: bytes = field(repr=False)
    """AES-256-GCM key of the vault."""
    key_id: str
    """Public fingerprint of `vault_key`, stored with each ciphertext so a wrong key is named."""

    @classmethod
    def from_master(cls, master: bytes) -> PhiKeys:
        """Derive both keys from `master` (32+ bytes)."""
        if len(master) < MIN_KEY_BYTES:
            raise PhiKeyError(f"master key has {len(master)} bytes; at least {MIN_KEY_BYTES} are needed")
        vault_key = _hkdf(master, b"loopline/phi/vault/aes-256-gcm/v1")
        key_id = hashlib.sha256(b"loopline/phi/key-id/v1" + vault_key).hexdigest()[:16]
        return cls(
            token_root=_hkdf(master, b"loopline/phi/token/hmac-sha256/v1"), vault_key=vault_key, key_id=key_id
        )

    @classmethod
    def from_config(cls, key: str | None, *, environment: Environment) -> PhiKeys:
        """Parse a configured key (see `parse_master_key`) and derive the working keys."""
        return cls.from_master(parse_master_key(key, environment=environment))

    def tenant_token_key(self, tenant: str) -> bytes:
        """The HMAC key of one tenant's tokens."""
        return hmac.new(self.token_root, b"tenant:" + tenant.encode(), hashlib.sha256).digest()
