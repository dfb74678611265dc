"""`loopline demo --review` leaves the console up after the run: over the run's folder as the demo
lays it out (the archive, the promotion stage's drafts, the improvement stage's release registry),
an operator signs in and sees the run's episodes, drafts and adapters."""

from __future__ import annotations

import io
import re
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from rich.console import Console

from adapters.drafting.store import DraftStore, PromotionStatus
from bridge.store import ArchiveRecord, SqlEventArchive
from envs.domain import promotion
from envs.rcm import generate_base
from loopline.demo.console import DRAFTS, RELEASE_DB, hold_console
from loopline.demo.promotion import OPERATOR_TOKEN, REVIEWER_TOKEN
from tests.workflows.episodes import record, redactor
from training.release.manager import ReleaseManager
from training.release.store import SqlReleaseStore


def _run_folder(workdir: Path) -> tuple[str, list[str], str, str]:
    """A finished run's folder: two archived episodes, one published draft, one adapter."""
    db_url = f"sqlite:///{workdir / 'archive.db'}"
    archive = SqlEventArchive(db_url)
    archive.create_schema()
    episodes = []
    for task in generate_base(seed=4, per_carc=1)[:2]:
        events = record(task, redactor(workdir))
        archive.append([ArchiveRecord.of(e) for e in events])
        episodes.append(events)
    draft = promotion("rcm").build_draft(episodes[0], fingerprint="ab" * 16, rule="escalation", threshold=0.9)
    store = DraftStore(workdir / DRAFTS)
    store.put_draft(draft)
    store.put_status(
        PromotionStatus(
            draft_id=draft.draft_id,
            workflow_id="wf-1",
            fingerprint="ab" * 16,
            stage="published",
            task_id="task-1",
            task_set="rcm-promoted",
            task_set_version=1,
            updated_at=datetime.now(UTC),
        )
    )
    folder = workdir / "improvement" / "state" / "adapters" / "demo-cycle-1"
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text("{}")
    (workdir / RELEASE_DB).parent.mkdir(parents=True, exist_ok=True)
    release = SqlReleaseStore(f"sqlite:///{workdir / RELEASE_DB}")
    release.create_schema()
    ReleaseManager(release).register(folder, base_model="demo-champion", gate_passed=True)
    release.close()
    return db_url, [e[0].episodeid for e in episodes], draft.draft_id, folder.name


def test_the_console_stays_up_after_the_run_with_its_episodes_drafts_and_adapters(tmp_path: Path) -> None:
    db_url, episodes, draft_id, adapter_id = _run_folder(tmp_path)
    out = io.StringIO()
    stop = threading.Event()
    held = threading.Thread(
        target=hold_console, args=(Console(file=out, width=400), tmp_path, db_url, stop), daemon=True
    )
    held.start()
    deadline = time.monotonic() + 30
    while not (found := re.search(r"(http://127\.0\.0\.1:\d+)/review/console", out.getvalue())):
        assert time.monotonic() < deadline and held.is_alive(), out.getvalue()
        time.sleep(0.1)
    url = found.group(1)
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/review/console").status_code == 303  # signed out: to the sign-in page
        signed = http.post("/review/login", data={"token": OPERATOR_TOKEN})
        assert signed.status_code == 303 and signed.headers["location"] == "/review/console"
        page = http.get("/review/console").text
        for episode_id in episodes:
            assert episode_id in page
        assert draft_id in page and "published" in page
        assert adapter_id in page and "demo-champion" in page and "candidate" in page
        assert "No release registry is read here" not in page
        # The reviewer's token signs in too; the run is over, so nothing is waiting for a decision.
        reviewer = httpx.Client(base_url=url, timeout=30)
        assert reviewer.post("/review/login", data={"token": REVIEWER_TOKEN}).status_code == 303
        assert draft_id not in reviewer.get("/review").text
        assert draft_id in reviewer.get("/review/console").text
        reviewer.close()
    stop.set()
    held.join(timeout=10)
    assert not held.is_alive()
    with httpx.Client(timeout=2) as http:
        try:
            http.get(f"{url}/review/login")
        except httpx.TransportError:
            pass
        else:
            raise AssertionError("the console still answers after it was stopped")


def test_a_run_without_an_improvement_stage_says_no_registry_is_read(tmp_path: Path) -> None:
    db_url, _, draft_id, _ = _run_folder(tmp_path)
    (tmp_path / RELEASE_DB).unlink()
    stop = threading.Event()
    out = io.StringIO()
    held = threading.Thread(
        target=hold_console, args=(Console(file=out), tmp_path, db_url, stop), daemon=True
    )
    held.start()
    deadline = time.monotonic() + 30
    while not (found := re.search(r"(http://127\.0\.0\.1:\d+)/review/console", out.getvalue())):
        assert time.monotonic() < deadline and held.is_alive(), out.getvalue()
        time.sleep(0.1)
    with httpx.Client(base_url=found.group(1), timeout=30) as http:
        http.post("/review/login", data={"token": OPERATOR_TOKEN})
        page = http.get("/review/console").text
    stop.set()
    held.join(timeout=10)
    assert draft_id in page and "No release registry is read here" in page
