"""Logs: the last lines, and following a file as it grows."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from loopline.stack.logs import follow, last_words, tail_lines


def test_tail_lines_gives_the_last_n_lines(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("".join(f"line {n}\n" for n in range(10)))

    assert tail_lines(log, 3) == ["line 7", "line 8", "line 9"]
    assert tail_lines(tmp_path / "missing.log", 3) == []


def test_last_words_skip_trailing_blank_lines(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("starting\nError: port taken\n\n\n")

    assert last_words(log) == "Error: port taken"


def test_follow_yields_lines_appended_after_it_started(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("old\n")
    seen: list[tuple[str, str]] = []

    def writer() -> None:
        time.sleep(0.1)
        with log.open("a") as out:
            out.write("new 1\nnew ")
            out.flush()
            time.sleep(0.1)
            out.write("2\n")

    thread = threading.Thread(target=writer)
    thread.start()
    deadline = time.monotonic() + 5
    for item in follow([("x", log)], poll_s=0.02, stop=lambda: len(seen) >= 2 or time.monotonic() > deadline):
        seen.append(item)
    thread.join()

    assert seen == [("x", "new 1"), ("x", "new 2")]
