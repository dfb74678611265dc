"""Signed checkpoints of stream heads: their format, signing, verification and comparison.

A checkpoint is `{"version": 1, "source", "at", "key_id", "heads": {stream: {"seq", "hash"}},
"signature"}`; the Ed25519 signature covers the canonical JSON of every other field. The producer
(the bridge) holds the private key; the archive holds neither key nor checkpoints, so whoever can
rewrite the archive cannot make a checkpoint agree. `compare_heads` names what the archive lost or
changed against a checkpoint: a stream deleted, a tail truncated, a stream rewritten and re-hashed
(its chain verifies, but the event at the checkpointed seq has another hash). Pure, but for the
`lookup` it is given.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that is malformed, unsigned, or signed by another key."""


def _canonical(doc: Mapping[str, Any]) -> bytes:
    body = {key: value for key, value in doc.items() if key != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def public_key_text(key: Ed25519PublicKey) -> str:
    """The raw public key, base64 (what `loopline audit verify --checkpoint-key` takes)."""
    return base64.b64encode(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def key_id(key: Ed25519PublicKey) -> str:
    """A short public fingerprint of the key."""
    return hashlib.sha256(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def private_key(seed_b64: str) -> Ed25519PrivateKey:
    """The signing key from its 32-byte seed, base64."""
    try:
        return Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed_b64, validate=True))
    except ValueError as exc:
        raise CheckpointError(f"the checkpoint key must be a base64 32-byte Ed25519 seed: {exc}") from None


def public_key(text: str) -> Ed25519PublicKey:
    """The verification key from its raw 32 bytes, base64."""
    try:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(text, validate=True))
    except ValueError as exc:
        raise CheckpointError(f"the checkpoint public key must be base64 of 32 bytes: {exc}") from None


def sign_checkpoint(
    heads: Mapping[str, tuple[int, str]], *, source: str, at: float, key: Ed25519PrivateKey
) -> dict[str, Any]:
    """A signed checkpoint of `heads` (stream → (last seq, its hash))."""
    doc: dict[str, Any] = {
        "version": VERSION,
        "source": source,
        "at": at,
        "key_id": key_id(key.public_key()),
        "heads": {stream: {"seq": seq, "hash": digest} for stream, (seq, digest) in sorted(heads.items())},
    }
    doc["signature"] = base64.b64encode(key.sign(_canonical(doc))).decode()
    return doc


def write_checkpoint_file(
    heads: Mapping[str, tuple[int, str]], *, source: str, at: float, key: Ed25519PrivateKey, folder: Path
) -> Path:
    """Sign `heads` and write them to a new file in `folder`, atomically (`checkpoint-<ms>-<key>.json`)."""
    doc = sign_checkpoint(heads, source=source, at=at, key=key)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"checkpoint-{int(at * 1000):015d}-{doc['key_id']}.json"
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(doc, sort_keys=True))
    os.replace(partial, path)
    return path


def verify_checkpoint(doc: Mapping[str, Any], key: Ed25519PublicKey) -> dict[str, tuple[int, str]]:
    """The heads of a checkpoint whose signature `key` verifies; `CheckpointError` otherwise."""
    if doc.get("version") != VERSION or not isinstance(doc.get("heads"), dict):
        raise CheckpointError("not a version-1 checkpoint")
    try:
        key.verify(base64.b64decode(str(doc.get("signature", "")), validate=True), _canonical(doc))
    except (InvalidSignature, ValueError):
        raise CheckpointError(
            f"the checkpoint of {doc.get('at')} is not signed by key {key_id(key)} (forged or edited)"
        ) from None
    return {stream: (int(head["seq"]), str(head["hash"])) for stream, head in doc["heads"].items()}


@dataclass(frozen=True)
class HeadFinding:
    """What the archive lacks or changed against a checkpoint, for one stream."""

    stream: str
    kind: str
    """`stream_deleted`, `tail_truncated` or `rewritten`."""
    detail: str

    def __str__(self) -> str:
        return f"stream {self.stream}: {self.kind}: {self.detail}"


ArchiveLookup = Callable[[str, int], tuple[int | None, str | None]]
"""(stream, seq) → (the archive's last seq of the stream or None, the archive's hash at seq or None)."""


def compare_heads(heads: Mapping[str, tuple[int, str]], lookup: ArchiveLookup) -> list[HeadFinding]:
    """Every stream of the checkpoint the archive deleted, truncated or rewrote."""
    findings = []
    for stream, (seq, digest) in sorted(heads.items()):
        last, found = lookup(stream, seq)
        if last is None:
            findings.append(
                HeadFinding(
                    stream,
                    "stream_deleted",
                    f"the checkpoint holds it up to seq {seq}; the archive has no event of it",
                )
            )
        elif last < seq:
            findings.append(
                HeadFinding(
                    stream,
                    "tail_truncated",
                    f"the archive ends at seq {last}; the checkpoint holds seq {seq}",
                )
            )
        elif found != digest:
            findings.append(
                HeadFinding(
                    stream,
                    "rewritten",
                    f"its event at seq {seq} has hash {found}; the checkpoint says {digest} (edited and re-hashed)",
                )
            )
    return findings
