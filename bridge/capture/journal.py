"""`Journal`: the file in front of the outbox's SQLite tables (docs/capture.md).

Why it exists: a SQLite commit per event cannot go below two WAL frames (the row's page and the
unique index's page), and on a VM whose caches go cold between paced tool calls that is most of
capture's cost. One framed `pwrite()` per event is the cheapest durable append there is; the outbox
ingests the journal into SQLite in batches on a thread of its own, off the agent's path.

Durability is the outbox's `process` level: when `append` returns, the frame is in the file's pages
in the kernel, so it survives the death of the process (SIGKILL, OOM), not a power cut.

The file is written over in place, like SQLite's WAL, not appended to: it is filled with zeros
once (`SIZE`), and frames are written at offsets inside it. A write that grows a file changes its
size, and on ext4 every such write then waits for the filesystem's journal whenever another file is
fsynced (the outbox's checkpoints do, every second): measured, appends stalled past 1 ms about
twice a second, writes in place never (docs/capture.md).

Those first `SIZE` bytes are mapped (`mmap`, `MAP_SHARED`), and a frame is copied into the mapping:
the same pages of the kernel's page cache a `pwrite` would fill, so just as durable (they outlive
the process), without a system call. Measured on this VM: 0.3 us against 4.8 us back to back, and
2-3 us against 10-14 us right after a 1 ms sleep, twice per tool call (docs/capture.md). Past the
mapping (only while SQLite is far behind), or where the filesystem cannot map files, frames are
written with `pwrite`. The file must not be cut below `SIZE` by anyone else while it is open: a
write into a page beyond the file's end is a SIGBUS, which is why the file is filled with real
zeros and only ever cut back to `SIZE`. For the same reason the file is mapped only on filesystems
that overwrite allocated blocks in place (`MAPPED_FILESYSTEMS`): on a copy-on-write one (btrfs,
ZFS) every write needs new space, and with the disk full a write into a mapped page is a SIGBUS,
where a `pwrite` fails with ENOSPC, a clear `CaptureUnavailable`.

- A 12-byte header: the magic `LLJ1` and the file's generation (little-endian u64).
- Frames: body length and CRC-32 of the body (`<II`), then the body (`encode_row`), which starts
  with the generation it was written in.

The outbox keeps (generation, offset) of what it has ingested in its own SQLite transaction, so a
restarted process ingests exactly the frames after it. Once enough is ingested the outbox
`restart`s the file: a new header of the next generation, frames from the start again (rows written
since the ingest are written again there first, in the new generation). Frames of an
older generation left further on are not read (their generation differs), nor is anything after a
frame cut short or failing its CRC (a torn write: the process died inside it, or a power cut).

- file generation == stored generation: the frames after the stored offset are new;
- file generation >  stored generation: the file was restarted and the process died before SQLite
  recorded it, or a power cut lost the record: every frame is read again (ingesting is idempotent
  on the stream position, and only rows never ingested can be in the file);
- file generation <  stored generation: everything in the file was ingested.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bridge.capture.sink import CaptureUnavailable

Row = tuple[Any, ...]
"""An outbox row: episode id, seq, event id, hash, doc (bytes), appended_at."""

MAGIC = b"LLJ1"
HEADER = struct.Struct("<4sQ")
HEADER_SIZE = HEADER.size
FRAME = struct.Struct("<II")  # body length, CRC-32 of the body
FIXED = struct.Struct("<QqdHHH")  # generation, seq, appended_at, lengths of episode id, event id, hash
MAX_BODY = 64 * 1024 * 1024
"""A frame claiming a longer body is torn (an event is at most a few MB; the relay rejects 1 MB+)."""
SIZE = 8 * 1024 * 1024
"""Bytes of zeros a new journal file is filled with. The outbox restarts it at half of this, so in
steady state every write lands inside; past it (SQLite behind) the file grows, and is cut back to
this at the next restart."""


class JournalCorrupt(RuntimeError):
    """The file is not a journal (wrong magic): it is left alone rather than overwritten."""


def encode_row(row: Row, generation: int) -> bytes:
    """The frame of one outbox row, written in `generation`."""
    episode_id, seq, event_id, hash_, doc, appended_at = row
    episode, event, digest = episode_id.encode(), event_id.encode(), hash_.encode()
    fixed = FIXED.pack(generation, seq, appended_at, len(episode), len(event), len(digest))
    body = b"".join((fixed, episode, event, digest, doc))
    return FRAME.pack(len(body), zlib.crc32(body)) + body


def decode_frames(buffer: bytes, start: int, generation: int) -> tuple[list[Row], int]:
    """The rows of the whole frames of `generation` in `buffer` from `start`, and the offset after
    the last one. Stops at the first frame that is cut short, fails its CRC, or is of another
    generation: a torn tail or an older cycle's leftovers, never data."""
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
        written_in, seq, appended_at, n_episode, n_event, n_hash = FIXED.unpack_from(body)
        if written_in != generation:
            break
        cut = FIXED.size
        fields = []
        for n in (n_episode, n_event, n_hash):
            fields.append(bytes(body[cut : cut + n]).decode())
            cut += n
        episode_id, event_id, hash_ = fields
        rows.append((episode_id, seq, event_id, hash_, bytes(body[cut:]), appended_at))
        at = body_at + size
    return rows, at


MAPPED_FILESYSTEMS = frozenset({"ext2", "ext3", "ext4", "xfs", "tmpfs"})
"""Filesystems on which a write into already-allocated blocks needs no new space, so a full disk
cannot turn a write into the journal's mapping into a SIGBUS (the file's blocks were allocated by
filling it). Anywhere else (btrfs, ZFS, overlay, NFS, unknown) frames are written with `pwrite`."""


def filesystem_type(path: str | Path, mounts: str) -> str | None:
    """The type of the filesystem holding `path`, given the text of `/proc/self/mounts`: that of the
    mount whose mount point is the longest prefix of the resolved path (the later one of equals)."""
    target = str(Path(path).resolve())
    found: tuple[int, str] | None = None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1])  # \040: a space
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (found is None or len(point) >= found[0]):
            found = (len(point), fields[2])
    return found[1] if found else None


def maps_in_place(path: str | Path) -> bool:
    """Whether the journal at `path` may be written through a mapping (`MAPPED_FILESYSTEMS`)."""
    try:
        mounts = Path("/proc/self/mounts").read_text()
    except OSError:  # not Linux: no way to tell
        return False
    return filesystem_type(path, mounts) in MAPPED_FILESYSTEMS


class Journal:
    """One journal file, written by one process (the outbox's, which holds its lock)."""

    def __init__(self, path: Path, fd: int, generation: int, end: int) -> None:
        self.path = path
        self._fd = fd
        self.generation = generation
        self.end = end
        """Offset after the last whole frame: where the next one goes."""
        self._map: mmap.mmap | None = None
        if maps_in_place(path):
            try:
                self._map = mmap.mmap(fd, SIZE, flags=mmap.MAP_SHARED)
            except OSError:  # a filesystem that cannot map files shared: every frame is a pwrite
                self._map = None
        self._mapped = SIZE

    @classmethod
    def open(cls, path: str | Path, generation: int, offset: int) -> tuple[Journal, list[Row]]:
        """Open (or create) the journal at `path`, given the (generation, offset) the outbox has
        ingested up to; returns it and the rows written after that offset, in write order."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if len(data) < HEADER_SIZE:  # new (or never got its header)
                return cls._start(path, fd, generation, fill=True), []
            magic, found = HEADER.unpack_from(data)
            if magic != MAGIC:
                raise JournalCorrupt(f"{path} is not a capture journal (magic {magic!r})")
            if found < generation:  # all of it was ingested
                return cls._start(path, fd, generation, fill=len(data) < SIZE), []
            start = min(max(offset, HEADER_SIZE), len(data)) if found == generation else HEADER_SIZE
            rows, end = decode_frames(data, start, found)
            if len(data) < SIZE:
                _fill(fd, len(data), SIZE)
            return cls(path, fd, found, end), rows
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _start(cls, path: Path, fd: int, generation: int, *, fill: bool) -> Journal:
        if fill:
            _fill(fd, 0, SIZE)
        os.pwrite(fd, HEADER.pack(MAGIC, generation), 0)
        return cls(path, fd, generation, HEADER_SIZE)

    def append(self, frame: bytes) -> None:
        """Write one frame (`encode_row` of this generation) after the last; returns once the
        kernel has it. On a failed or short write, `CaptureUnavailable`, and the next frame goes
        where this one was meant to (what it left is cut off by its CRC at recovery)."""
        end = self.end
        stop = end + len(frame)
        mapped = self._map
        if mapped is not None and stop <= self._mapped:  # a copy into the page cache
            mapped[end:stop] = frame
            self.end = stop
            return
        try:
            written = os.pwrite(self._fd, frame, end)
        except OSError as exc:
            raise CaptureUnavailable(f"the capture journal {self.path} cannot store events: {exc}") from exc
        if written != len(frame):
            raise CaptureUnavailable(
                f"the capture journal {self.path} cannot store events: short write ({written} of {len(frame)} bytes)"
            )
        self.end += written

    def restart(self, generation: int, frames: Sequence[bytes] = ()) -> None:
        """Start over at the beginning as `generation`, with `frames` (already of `generation`:
        rows written since the last ingest) first. The caller has ingested everything before them,
        and they must fit in front of where they are now, so that until the new header is written
        the old generation's frames that still count are intact."""
        body = b"".join(frames)
        if HEADER_SIZE + len(body) > self.end - len(body):
            raise ValueError("the frames to keep would overwrite themselves")
        if body:
            self._write(body, HEADER_SIZE)
        self._write(HEADER.pack(MAGIC, generation), 0)  # from here on the new cycle is the file
        self.generation, self.end = generation, HEADER_SIZE + len(body)
        if os.fstat(self._fd).st_size > 2 * SIZE:  # it grew while SQLite was behind
            os.ftruncate(self._fd, SIZE)

    def _write(self, data: bytes, at: int) -> None:
        if os.pwrite(self._fd, data, at) != len(data):
            raise OSError(f"short write to {self.path}")

    def close(self) -> None:
        """Unmap the file and close its descriptor. Idempotent."""
        if self._fd >= 0:
            if self._map is not None:
                self._map.close()
            os.close(self._fd)
            self._fd = -1


def _fill(fd: int, start: int, stop: int, chunk: int = 1024 * 1024) -> None:
    """Write zeros over [start, stop): real blocks, so later writes in place change no metadata."""
    zeros = bytes(chunk)
    for at in range(start, stop, chunk):
        os.pwrite(fd, zeros[: min(chunk, stop - at)], at)


def frames(path: str | Path) -> Iterator[Row]:
    """Every whole frame's row of the file's current generation (for tools and tests)."""
    data = Path(path).read_bytes()
    _, generation = HEADER.unpack_from(data)
    yield from decode_frames(data, HEADER_SIZE, generation)[0]
