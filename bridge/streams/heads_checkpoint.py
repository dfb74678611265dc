"""Signed checkpoints of the detector's own `edgecase:` stream heads, kept outside the archive.

The detector is the writer of its edge-case streams as the bridge is of its episodes, so it signs
what it published the way the bridge's capture does (`bridge.capture.checkpoint`): after every
batch whose reports it recorded, one file listing each of those streams' new head (seq, hash),
signed with its Ed25519 key. Edge cases are deduplicated per window, so this is a handful of small
files an hour. Each also goes to the checkpoint topic (`bridge.audit.anchor`), off the archive's
host, as the bridge's do. `loopline audit verify` takes the highest head of each stream over every
file and every anchored document, so a deleted, truncated or rewritten edge case is named like a
deleted episode, with the files gone too.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bridge.audit.anchor import KafkaAnchor
from bridge.audit.checkpoints import CheckpointError, private_key, write_checkpoint_file
from bridge.streams.config import StreamsConfig
from schemas.envelope import Event

log = logging.getLogger(__name__)


def read_seed(path: Path) -> Ed25519PrivateKey:
    """The signing key in `path` (its base64 seed, as `loopline audit keygen` prints it)."""
    try:
        return private_key(path.read_text().strip())
    except OSError as exc:
        raise CheckpointError(f"cannot read the checkpoint key {path}: {exc}") from None


class HeadsCheckpointer:
    """Writes one signed checkpoint per batch of recorded reports."""

    def __init__(
        self,
        key: Ed25519PrivateKey,
        folder: Path,
        *,
        source: str,
        clock: Callable[[], float] = time.time,
        anchor: KafkaAnchor | None = None,
    ) -> None:
        self._key, self._folder, self._source, self._clock = key, folder, source, clock
        self._anchor = anchor

    @classmethod
    def from_config(cls, config: StreamsConfig) -> HeadsCheckpointer | None:
        """The checkpointer `config` asks for, or None without a key and folder."""
        if config.checkpoint_key_file is None or config.checkpoint_dir is None:
            return None
        anchor = None
        if config.checkpoint_kafka:  # the worker's broker, with the producer settings given
            kafka = {**config.checkpoint_kafka, "bootstrap.servers": config.bootstrap_servers}
            anchor = KafkaAnchor(kafka, config.anchor_topic)
        return cls(
            read_seed(config.checkpoint_key_file), config.checkpoint_dir, source=config.source, anchor=anchor
        )

    def note(self, recorded: Iterable[Event]) -> Path | None:
        """Checkpoint the heads `recorded` moved; None when there were none, or the write failed
        (logged: the next batch's checkpoint covers only its own streams, the archive still has these)."""
        heads: dict[str, tuple[int, str]] = {}
        for event in recorded:
            if event.episodeid not in heads or event.seq > heads[event.episodeid][0]:
                heads[event.episodeid] = (event.seq, event.hash)
        if not heads:
            return None
        try:
            path = write_checkpoint_file(
                heads, source=self._source, at=self._clock(), key=self._key, folder=self._folder
            )
        except OSError as exc:
            log.error("no checkpoint of %d edge-case stream(s) written: %s", len(heads), exc)
            return None
        if self._anchor is not None:  # also outside the host; a failure is logged by the anchor
            self._anchor(json.loads(path.read_text()))
        return path

    def close(self) -> None:
        """Flush the anchor's producer."""
        if self._anchor is not None:
            self._anchor.close()
