"""Where each process finds its event keys (`bridge.audit.event_keys`), and the embedded stack's set.

Each producer role (`bridge.audit.scopes`: bridge, detector, promotion, release) has a private key
file of its own, `keys/<role>.json`, and the verifiers (the stream worker, `replay`, `audit
verify`) read one public file, `keys/public.json`, with every role's public keys. So no process
holds another's private key, and the worker, which writes the archive, can sign only as the
detector (whose scope is edge cases). `loopline up`, the demo and `loopline audit event-key add`
make these files; a process never makes the file it was told to read: one that is missing is an
`EventKeyError` naming the path it looked at and the variable that sets it.

The same folder holds the checkpoint keys (`bridge.audit.checkpoints`): `checkpoint-bridge.key` and
`checkpoint-detector.key` (each an Ed25519 seed, base64, the producer's only) and
`checkpoints.pub` (their public keys, one per line, what `loopline audit verify` checks with).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from bridge.audit.event_keys import (
    EventKey,
    EventKeyError,
    Keyring,
    KeyringFile,
    add_key,
    load_keyring,
    save_keyring,
)

KEYS_DIR = Path(".loopline/keys")
"""The embedded stack's key folder (under its state folder, `.loopline`)."""
PUBLIC_FILE = "public.json"
DETECT_SOURCE = "loopline://bridge/detect"
PROMOTION_SOURCE = "loopline://workflows/promotion"
RELEASE_SOURCE = "loopline://training/release"
FIXED_SOURCES: dict[str, tuple[str, ...]] = {
    "detector": (DETECT_SOURCE,),
    "promotion": (PROMOTION_SOURCE,),
    "release": (RELEASE_SOURCE,),
}
"""The roles whose source does not depend on the domain; the bridge's is `loopline://bridge/<domain>`."""


CHECKPOINT_ROLES = ("bridge", "detector")
"""The producers that sign checkpoints of their stream heads."""
CHECKPOINT_PUBLIC_FILE = "checkpoints.pub"


def checkpoint_key_file(role: str, folder: Path = KEYS_DIR) -> Path:
    """The checkpoint signing seed of `role` in `folder`."""
    return folder / f"checkpoint-{role}.key"


def checkpoint_public_file(folder: Path = KEYS_DIR) -> Path:
    """The checkpoint public keys (base64, one a line) in `folder`."""
    return folder / CHECKPOINT_PUBLIC_FILE


def ensure_checkpoint_keys(folder: Path = KEYS_DIR) -> Path:
    """A checkpoint seed per checkpointing role in `folder` (made where missing, owner-only) and the
    public file listing each one's public key; the public file's path."""
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from bridge.audit.checkpoints import private_key, public_key_text

    folder.mkdir(parents=True, exist_ok=True)
    public = []
    for role in CHECKPOINT_ROLES:
        path = checkpoint_key_file(role, folder)
        if not path.exists():
            seed = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
            _write_private(path, base64.b64encode(seed).decode() + "\n")
        public.append(public_key_text(private_key(path.read_text().strip()).public_key()))
    listed = checkpoint_public_file(folder)
    known = listed.read_text().split() if listed.exists() else []
    listed.write_text("".join(f"{k}\n" for k in dict.fromkeys([*known, *public])))
    return listed


def _write_private(path: Path, text: str) -> None:
    import os

    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(partial, path)


def role_sources() -> dict[str, tuple[str, ...]]:
    """Every embedded producer role and the sources it signs as (a bridge per registered domain)."""
    from envs.domain import DOMAINS

    return {"bridge": tuple(f"loopline://bridge/{name}" for name in DOMAINS.names()), **FIXED_SOURCES}


def role_file(role: str, folder: Path = KEYS_DIR) -> Path:
    """The private key file of `role` in `folder`."""
    return folder / f"{role}.json"


def public_file(folder: Path = KEYS_DIR) -> Path:
    """The verifiers' public keyring in `folder`."""
    return folder / PUBLIC_FILE


def ensure_keys(folder: Path = KEYS_DIR, extra: Mapping[str, Iterable[str]] | None = None) -> Path:
    """The embedded stack's keys in `folder`: a private file per role with a key for each of its
    sources (`role_sources`, plus `extra` role → sources), made where missing, and the public
    file listing every public key; the public file's path. Keys already there are kept."""
    wanted = {role: list(sources) for role, sources in role_sources().items()}
    for role, sources in (extra or {}).items():
        wanted.setdefault(role, []).extend(sources)
    public = public_file(folder)
    known = load_keyring(public) if public.exists() else Keyring(())
    listed = {key.key_id for key in known.keys}
    for role, sources in wanted.items():
        path = role_file(role, folder)
        keyring = load_keyring(path) if path.exists() else Keyring(())
        for source in dict.fromkeys(sources):
            try:
                keyring.signing_key(source)
            except EventKeyError:
                add_key(path, source)
        for key in load_keyring(path).public().keys:
            if key.key_id not in listed:
                known, listed = Keyring((*known.keys, key)), listed | {key.key_id}
    save_keyring(public, known)
    ensure_checkpoint_keys(folder)
    return public


def signing_key(path: Path, source: str, *, variable: str) -> EventKey:
    """The key `source` signs with, from its role's private file `path` (set by `variable`);
    `EventKeyError` naming where it looked when the file or the key is missing."""
    if not path.is_file():
        raise EventKeyError(
            f"no event signing key file at {path.absolute()} ({variable}): `loopline up` makes the "
            f"embedded stack's under {KEYS_DIR}; elsewhere mount the producer's own key file "
            f"(`loopline audit event-key add --source {source} --file {path}`)"
        )
    try:
        return load_keyring(path).signing_key(source)
    except EventKeyError as exc:
        raise EventKeyError(f"{path.absolute()} ({variable}): {exc}") from None


def verifying_keyring(path: Path, *, variable: str) -> KeyringFile:
    """The verifiers' public keyring at `path` (set by `variable`), read again when it changes;
    `EventKeyError` when missing (saying where it looked), or when it holds a private key (a
    verifier that can sign could forge the producer it verifies)."""
    if not path.is_file():
        raise EventKeyError(
            f"no event keyring at {path.absolute()} ({variable}): a verifier never makes its own (it "
            f"would refuse every producer's events); `loopline up` makes the embedded stack's "
            f"{public_file()}, elsewhere mount the public keyring"
        )
    keyring = KeyringFile(path)
    shared = sorted(
        {k.source for k in keyring.current().keys if isinstance(k, EventKey) and k.algorithm == "hmac-sha256"}
    )
    if shared:
        raise EventKeyError(
            f"{path.absolute()} ({variable}) is a legacy HMAC keyring (shared secrets for "
            f"{', '.join(shared)}): whoever verifies with a shared secret can sign as its producer, so "
            f"verifiers take public keys only. Make each producer its own key and the public keyring "
            f"with `loopline up` (the embedded stack's go under {KEYS_DIR}: a private `<role>.json` "
            f"per producer, `{PUBLIC_FILE}` for verifiers), or one by one with `loopline audit "
            f"event-key add --source SOURCE --file ROLE.json --public-file PUBLIC.json`, then set {variable} "
            f"to the public file"
        )
    if keyring.current().can_sign():
        raise EventKeyError(
            f"{path.absolute()} ({variable}) holds private or shared keys: give verifiers the public "
            f"keyring only (`{PUBLIC_FILE}`), so the archive's writer cannot sign as a producer"
        )
    return keyring


def embedded_signing_key(role: str, source: str, folder: Path = KEYS_DIR) -> EventKey:
    """`source`'s key in the embedded stack's `folder`, made there (with the rest of the stack's
    keys) when missing: for tools that stand in for a producer on one machine (the benches)."""
    ensure_keys(folder, {role: [source]})
    return signing_key(role_file(role, folder), source, variable=f"{folder}/{role}.json")
