"""Who may call the policy server, and which folders it may load adapters from. Pure but for
resolving paths.

Two keys, two roles. The serving key answers inference and the model list (the bridge, evaluation,
the demo's clients); the release key also loads and unloads adapters, which only the release path
does. Every route needs one of them, `/health` and `/metrics` included (probes use a TCP check).

An adapter folder must lie under the server's adapter root once every symlink is followed: a
relative path is read from the root, an absolute one must already be inside it, `..` is refused
outright, and each defining file must resolve inside the root too (a symlinked weights file that
points elsewhere is an escape).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

RELEASE_PATHS = frozenset({"/v1/load_lora_adapter", "/v1/unload_lora_adapter"})
"""The routes that change what the server serves."""

MIN_KEY_CHARS = 16


class ServeRole(StrEnum):
    """What a key may do."""

    SERVING = "serving"
    RELEASE = "release"


@dataclass(frozen=True)
class Refusal:
    """Why a request is not let in, and its HTTP status (401 no or unknown key, 403 wrong role)."""

    status: int
    message: str


@dataclass(frozen=True)
class AccessKeys:
    """The server's two bearer keys; they must differ and be long enough to be secrets."""

    serving: str
    release: str

    def __post_init__(self) -> None:
        for label, key in (("serving", self.serving), ("release", self.release)):
            if len(key) < MIN_KEY_CHARS:
                raise ValueError(f"the {label} key needs at least {MIN_KEY_CHARS} characters")
        if hmac.compare_digest(self.serving, self.release):
            raise ValueError("the serving and release keys must differ")

    def role_of(self, token: str) -> ServeRole | None:
        """The role `token` holds, compared in constant time; None for no key of this server."""
        if hmac.compare_digest(token.encode(), self.release.encode()):
            return ServeRole.RELEASE
        if hmac.compare_digest(token.encode(), self.serving.encode()):
            return ServeRole.SERVING
        return None


def required_role(path: str) -> ServeRole:
    """The role a route needs."""
    return ServeRole.RELEASE if path in RELEASE_PATHS else ServeRole.SERVING


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, token = (authorization or "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def refusal(path: str, authorization: str | None, keys: AccessKeys) -> Refusal | None:
    """Why a request to `path` with this `Authorization` header is refused, or None to let it in."""
    token = bearer(authorization)
    if token is None:
        return Refusal(401, "this server needs `Authorization: Bearer <key>` on every route")
    role = keys.role_of(token)
    if role is None:
        return Refusal(401, "the bearer token is not a key of this server")
    if required_role(path) is ServeRole.RELEASE and role is not ServeRole.RELEASE:
        return Refusal(403, "loading and unloading adapters needs the release key")
    return None


class AdapterPathError(ValueError):
    """An adapter path the server may not read."""


def adapter_folder(root: Path, requested: str, files: tuple[str, ...]) -> Path:
    """The real folder `requested` names under `root` (relative paths are read from `root`);
    raises `AdapterPathError` when it, or one of its `files`, lies outside `root`."""
    if "\0" in requested:
        raise AdapterPathError("an adapter path holds no NUL byte")
    path = Path(requested)
    if ".." in path.parts:
        raise AdapterPathError(f"{requested!r}: `..` is not allowed in an adapter path")
    real_root = root.resolve()
    real = (path if path.is_absolute() else real_root / path).resolve()
    if not real.is_relative_to(real_root):
        raise AdapterPathError(f"{requested!r} lies outside the adapter root {real_root}")
    for name in files:
        file = real / name
        if (file.exists() or file.is_symlink()) and not file.resolve().is_relative_to(real_root):
            raise AdapterPathError(f"{requested!r}: {name} links outside the adapter root {real_root}")
    return real
