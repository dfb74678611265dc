"""The event keyring every local process shares (`bridge.audit.event_keys`), found or made under the
state folder: the embedded stack's bridge, stream worker and promotion workers each load the same
file, so every named producer has a key and the worker knows them all. In production each producer
is given a file with its own key only, and the worker one with every producer's."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bridge.audit.event_keys import EventKeyError, Keyring, add_key, load_or_create_keyring

DEFAULT_KEYRING = Path(".loopline/event-keys.json")
"""Under the embedded stack's state folder (`.loopline`)."""
EMBEDDED_PRODUCERS = ("loopline://bridge/rcm", "loopline://bridge/detect", "loopline://workflows/promotion")
"""The named producers of the embedded stack: the bridge, the edge-case detector, the promotion workflow."""


def ensure_keyring(path: Path, sources: Iterable[str] = (), *, add_missing: bool = True) -> Keyring:
    """The keyring at `path`, created with a key for every embedded producer (and `sources`) when
    missing. A source without a key gets one when `add_missing` (dev, test and the embedded stack:
    the worker reads the file again when it changes); otherwise a missing file or key is an
    `EventKeyError` that says what to do."""
    wanted = tuple(sources)
    if not add_missing and not path.exists():
        raise EventKeyError(
            f"no event keyring at {path}: give this producer its key (`loopline audit event-key add "
            f"--source {' '.join(wanted) or 'SOURCE'} --file {path}`) and the stream worker the same key"
        )
    keyring = load_or_create_keyring(path, (*EMBEDDED_PRODUCERS, *wanted))
    for source in wanted:
        try:
            keyring.signing_key(source)
        except EventKeyError:
            if not add_missing:
                raise
            add_key(path, source)
    return load_or_create_keyring(path, ())
