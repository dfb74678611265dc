"""`loopline demo --review`, after the run: the console left up over what the run made (its
archive's episodes, labels and agreement; its task drafts; the adapters in its release registry),
read-only (no promotion workflow is left to decide), until Ctrl-C."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path

from rich.console import Console

from adapters.drafting.store import DraftStore
from loopline.demo.promotion import OPERATOR_TOKEN, REVIEWER_TOKEN, serve_review_page

DRAFTS = Path("promotion") / "drafts"
"""The promotion stage's draft store, under the run's folder."""
RELEASE_DB = Path("improvement") / "release.db"
"""The improvement stage's release registry, under the run's folder."""


def run_console(workdir: Path, db_url: str) -> AbstractContextManager[str]:
    """The console over the run in `workdir` whose archive is `db_url`; yields its base URL."""
    release = workdir / RELEASE_DB
    return serve_review_page(
        DraftStore(workdir / DRAFTS), None, db_url, f"sqlite:///{release}" if release.exists() else None
    )


def hold_console(console: Console, workdir: Path, db_url: str, stop: threading.Event | None = None) -> None:
    """Serve the run's console until Ctrl-C (or until `stop` is set)."""
    with run_console(workdir, db_url) as url:
        console.print(
            f"the console is up at {url}/review/console (sign in with {OPERATOR_TOKEN}, or "
            f"{REVIEWER_TOKEN} for the review pages); Ctrl-C ends it"
        )
        waiting = stop or threading.Event()
        try:
            while not waiting.wait(0.5):
                pass
        except KeyboardInterrupt:
            console.print("console stopped")
