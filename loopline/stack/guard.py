"""Start-up checks every deployable's settings share outside `dev`/`test`: a setting whose default
only makes sense on one machine (a SQLite file under `.loopline`, a broker on 127.0.0.1) must be
given, a keyring must already exist (each pod making its own would refuse every other's events),
and a dev token never authenticates. Each check raises ValueError naming the variable to fix."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

LENIENT = frozenset({"dev", "test"})
"""Environments where the one-machine defaults are fine."""


def require_given(model: BaseModel, fields: Iterable[str], prefix: str, environment: str) -> None:
    """Refuse to start when a field of `fields` kept its default outside dev/test."""
    if environment in LENIENT:
        return
    missing = [f"{prefix}{name.upper()}" for name in fields if name not in model.model_fields_set]
    if missing:
        raise ValueError(
            f"{', '.join(missing)} must be set when the environment is {environment!r} "
            "(their defaults are the one-machine stack's)"
        )


def require_keyring(path: Path, variable: str, environment: str) -> None:
    """Refuse to start outside dev/test when the event keyring is not there to read."""
    if environment not in LENIENT and not path.is_file():
        raise ValueError(
            f"{variable} {path} does not exist: outside dev/test the keyring is mounted (a Secret), "
            "never made at start-up (`loopline audit event-key` makes one)"
        )


def refuse_dev_tokens(digests: Iterable[str], dev_tokens: Iterable[str], environment: str) -> None:
    """Refuse a token digest that is a published dev token's, outside dev/test."""
    if environment in LENIENT:
        return
    known = {hashlib.sha256(token.encode()).hexdigest() for token in dev_tokens}
    if known.intersection(d.lower() for d in digests):
        raise ValueError(
            "LOOPLINE_BRIDGE_TOKEN_DIGESTS holds the digest of a dev token; give each role a random token"
        )
