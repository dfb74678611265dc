"""`Journal`: the append-only file in front of the outbox's SQLite tables (docs/capture.md).

Why it exists: a SQLite commit per event cannot go below two WAL frames (the row's page and the
unique index's page), and on a VM whose caches go cold between paced tool calls that is most of
capture's cost. One framed `write()` per event is the cheapest durable append there is; the outbox
ingests the journal into SQLite in batches on a thread of its own, off the agent's path.

Durability is the outbox's `process` level: when `append` returns, the frame is in the file through
`write()`, so it survives the death of the process (SIGKILL, OOM), not a power cut.

The file:
- a 12-byte header: the magic `LLJ1` and a generation number (little-endian u64);
- frames: length and CRC-32 of the body (`<II`), then the body (`encode_row`).

The outbox keeps (generation, offset) of what it has ingested in its own SQLite transaction, so a
restarted process ingests exactly the frames after it. When everything is ingested the outbox
`reset`s the file to a bare header of the next generation (the generation goes into SQLite first):

- file generation == stored generation: ingest the frames from the stored offset;
- file generation <  stored generation: the reset was cut short after its commit; everything in the
  file was ingested before it began;
- file generation >  stored generation: the stored offset was lost with a power cut; every frame
  is read again (ingesting is idempotent on the stream position).

A torn last frame (the process died inside `write()`, or a power cut) fails its length or CRC
check: recovery stops there and cuts the file back to the last whole frame.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bridge.capture.sink import CaptureUnavailable

Row = tuple[Any, ...]
"""An outbox row: episode id, seq, event id, hash, doc (bytes), appended_at."""

MAGIC = b"LLJ1"
HEADER = struct.Struct("<4sQ")
HEADER_SIZE = HEADER.size
FRAME = struct.Struct("<II")  # body length, CRC-32 of the body
FIXED = struct.Struct("<qdHHH")  # seq, appended_at, lengths of episode id, event id, hash
MAX_BODY = 64 * 1024 * 1024
"""A frame claiming a longer body is torn (an event is at most a few MB; the relay rejects 1 MB+)."""


class JournalCorrupt(RuntimeError):
    """The file is not a journal (wrong magic): it is left alone rather than overwritten."""


def encode_row(row: Row) -> bytes:
    """The frame of one outbox row."""
    episode_id, seq, event_id, hash_, doc, appended_at = row
    episode, event, digest = episode_id.encode(), event_id.encode(), hash_.encode()
    body = b"".join(
        (FIXED.pack(seq, appended_at, len(episode), len(event), len(digest)), episode, event, digest, doc)
    )
    return FRAME.pack(len(body), zlib.crc32(body)) + body


def decode_frames(buffer: bytes, start: int) -> tuple[list[Row], int]:
    """The rows of the whole frames in `buffer` from `start`, and the offset after the last one.

    Stops at the first frame that is cut short or fails its CRC: a torn tail, never data."""
    rows: list[Row] = []
    at = start
    while at + FRAME.size <= len(buffer):
        size, crc = FRAME.unpack_from(buffer, at)
        body_at = at + FRAME.size
        if size < FIXED.size or size > MAX_BODY or body_at + size > len(buffer):
            break
        body = memoryview(buffer)[body_at : body_at + size]
        if zlib.crc32(body) != crc:
            break
        seq, appended_at, n_episode, n_event, n_hash = FIXED.unpack_from(body)
        cut = FIXED.size
        fields = []
        for n in (n_episode, n_event, n_hash):
            fields.append(bytes(body[cut : cut + n]).decode())
            cut += n
        episode_id, event_id, hash_ = fields
        rows.append((episode_id, seq, event_id, hash_, bytes(body[cut:]), appended_at))
        at = body_at + size
    return rows, at


class Journal:
    """One journal file, opened for appending by one process (the outbox's, which holds its lock)."""

    def __init__(self, path: Path, fd: int, generation: int, end: int) -> None:
        self.path = path
        self._fd = fd
        self.generation = generation
        self.end = end
        """Offset after the last whole frame: where the next one goes."""

    @classmethod
    def open(cls, path: str | Path, generation: int, offset: int) -> tuple[Journal, list[Row]]:
        """Open (or create) the journal at `path`, given the (generation, offset) the outbox has
        ingested up to; returns it and the rows written after that offset, in append order."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        rows: list[Row] = []
        if len(data) < HEADER_SIZE:  # new, or a reset cut short before its header was written
            return cls._fresh(path, generation), rows
        magic, found = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise JournalCorrupt(f"{path} is not a capture journal (magic {magic!r})")
        if found < generation:  # a reset cut short after its commit: all of it was ingested
            return cls._fresh(path, generation), rows
        start = max(offset, HEADER_SIZE) if found == generation else HEADER_SIZE
        if start > len(data):  # the stored offset is past the file's end: nothing after it survived
            start = len(data)
        rows, end = decode_frames(data, start)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        if end < len(data):
            os.ftruncate(fd, end)  # cut the torn tail: the next frame goes after the last whole one
        return cls(path, fd, found, end), rows

    @classmethod
    def _fresh(cls, path: Path, generation: int) -> Journal:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)
        os.write(fd, HEADER.pack(MAGIC, generation))
        return cls(path, fd, generation, HEADER_SIZE)

    def append(self, frame: bytes) -> None:
        """Write one frame (`encode_row`); returns once the kernel has it. On a failed or short
        write the file is cut back to where it was and `CaptureUnavailable` raised."""
        try:
            written = os.write(self._fd, frame)
        except OSError as exc:
            self._cut_back()
            raise CaptureUnavailable(f"the capture journal {self.path} cannot store events: {exc}") from exc
        if written != len(frame):
            self._cut_back()
            raise CaptureUnavailable(
                f"the capture journal {self.path} cannot store events: short write ({written} of {len(frame)} bytes)"
            )
        self.end += written

    def _cut_back(self) -> None:
        with contextlib.suppress(OSError):  # recovery's CRC check still finds the frame's end
            os.ftruncate(self._fd, self.end)

    def reset(self, generation: int) -> None:
        """Empty the file to a bare header of `generation` (the caller has stored that generation
        and ingested everything)."""
        os.ftruncate(self._fd, 0)
        os.write(self._fd, HEADER.pack(MAGIC, generation))  # O_APPEND: lands at offset 0
        self.generation, self.end = generation, HEADER_SIZE

    def close(self) -> None:
        """Close the file descriptor. Idempotent."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def frames(path: str | Path) -> Iterator[Row]:
    """Every whole frame's row in a journal file (for tools and tests)."""
    data = Path(path).read_bytes()
    yield from decode_frames(data, HEADER_SIZE)[0]
