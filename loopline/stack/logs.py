"""Reading the components' log files: the last lines, and following them as they grow."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path


def tail_lines(path: Path, n: int) -> list[str]:
    """The last `n` lines of `path` (fewer if it is shorter; none if it does not exist)."""
    try:
        with path.open("r", errors="replace") as handle:
            return [line.rstrip("\n") for line in deque(handle, maxlen=n)] if n > 0 else []
    except FileNotFoundError:
        return []


def last_words(path: Path) -> str:
    """The last non-blank line of a log, for one-line start-up errors."""
    lines = [line.strip() for line in tail_lines(path, 20) if line.strip()]
    return lines[-1] if lines else "(empty log)"


def follow(
    paths: Sequence[tuple[str, Path]],
    *,
    poll_s: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[tuple[str, str]]:
    """Yield (name, line) for every line appended to the files, like `tail -F`, until `stop()`.

    Starts at the current end of each file and reopens a file that was truncated or replaced.
    Polling (rather than inotify) keeps this portable; a quarter second is plenty for humans.
    """
    offsets = {name: path.stat().st_size if path.exists() else 0 for name, path in paths}
    partial = {name: b"" for name, _ in paths}
    while not stop():
        idle = True
        for name, path in paths:
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            if size < offsets[name]:
                offsets[name] = 0  # truncated or rotated: start over
            if size == offsets[name]:
                continue
            with path.open("rb") as handle:  # bytes: text-mode tell() is not an offset
                handle.seek(offsets[name])
                chunk = handle.read()
                offsets[name] = handle.tell()
            idle = False
            *complete, partial[name] = (partial[name] + chunk).split(b"\n")
            for line in complete:
                yield name, line.decode(errors="replace")
        if idle:
            time.sleep(poll_s)
