"""Writing signed checkpoints of the heads this bridge's relay delivered, outside the archive.

Each checkpoint lists, for every stream in the outbox whose last row the broker acknowledged, that
row's seq and hash, signed with the bridge's Ed25519 key (`bridge.audit.checkpoints`). Files go to
a folder of their own (in production: storage the archive's operators cannot rewrite, such as a
bucket with object lock); `loopline audit verify --checkpoints` checks the archive against every
file there. A stream whose last row is not delivered yet waits for the next checkpoint, so a
checkpoint never names an event the archive could not have received.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bridge.audit.anchor import KafkaAnchor
from bridge.audit.checkpoints import write_checkpoint_file
from bridge.capture.outbox import SqliteOutbox
from bridge.recording import CaptureUnavailable

_log = logging.getLogger(__name__)


def delivered_heads(outbox: SqliteOutbox) -> dict[str, tuple[int, str]]:
    """Stream → (seq, hash) of its last row, for the streams whose last row was delivered."""
    return {
        row.episode_id: (row.seq, str(row.structured()["hash"]))
        for row in outbox.last_rows()
        if row.delivered_at is not None and row.rejected is None
    }


def write_checkpoint(
    outbox: SqliteOutbox, key: Ed25519PrivateKey, *, source: str, folder: Path, now: float | None = None
) -> Path:
    """Sign the delivered heads of `outbox` and write them to a new file in `folder` (atomically)."""
    at = time.time() if now is None else now
    return write_checkpoint_file(delivered_heads(outbox), source=source, at=at, key=key, folder=folder)


class CheckpointWriter:
    """Writes a checkpoint every `interval_s` on a daemon thread, and once more on `stop`."""

    def __init__(
        self,
        outbox: SqliteOutbox,
        key: Ed25519PrivateKey,
        *,
        source: str,
        folder: Path,
        interval_s: float,
        anchor: KafkaAnchor | None = None,
    ) -> None:
        self._outbox, self._key, self._source, self._folder = outbox, key, source, folder
        self._anchor = anchor
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="checkpoints", daemon=True)

    def start(self) -> None:
        """Start writing periodically."""
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.write()

    def write(self) -> Path | None:
        """Write one checkpoint now; None (logged) when the outbox or the folder fails."""
        try:
            path = write_checkpoint(self._outbox, self._key, source=self._source, folder=self._folder)
            if self._anchor is not None:  # also outside the host (bridge.audit.anchor)
                self._anchor(json.loads(path.read_text()))
            return path
        except (OSError, ValueError, CaptureUnavailable) as exc:
            _log.error("no checkpoint written: %s", exc)
            return None

    def stop(self) -> Path | None:
        """Stop the thread and write a last checkpoint (call it with the outbox still open)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        last = self.write()
        if self._anchor is not None:
            self._anchor.close()
        return last
