"""`loopline train dataset --from-archive` learns the archive's confirmed episodes: the same rows an
events file of the same episodes gives, with every call meeting its strict schema."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bridge.store import SqlEventArchive
from bridge.store.archive import ArchiveRecord
from loopline.cli import app
from loopline.interop.archive import archive_episodes, archive_label
from schemas.tasks import Task
from tests.training.data.production_events import archived
from training.data import load_dataset
from training.data.production import episode_set
from training.data.strict_calls import call_problems


def _archive(tmp_path: Path, rcm_tasks: list[Task]) -> tuple[str, list]:  # type: ignore[type-arg]
    url = f"sqlite:///{tmp_path / 'archive.db'}"
    events = archived(rcm_tasks[:3], ["paid", None, "paid"])
    archive = SqlEventArchive(url)
    archive.create_schema()
    archive.append([ArchiveRecord.of(e) for e in events])
    return url, events


def test_the_archive_gives_the_rows_its_events_give(rcm_tasks: list[Task], tmp_path: Path) -> None:
    url, events = _archive(tmp_path, rcm_tasks)
    found = archive_episodes(url)
    assert found.rows == episode_set(events, label="x").rows and len(found.rows) == 2
    assert found.skipped == {"no confirming outcome yet": 1}
    assert [p for r in found.rows for p in call_problems(r.messages, r.tools)] == []


def test_train_dataset_reads_confirmed_episodes_straight_from_the_archive(
    rcm_tasks: list[Task], tmp_path: Path
) -> None:
    url, _ = _archive(tmp_path, rcm_tasks)
    state = ["--state", str(tmp_path / "state")]
    done = CliRunner().invoke(app, ["train", "dataset", "prod", "--from-archive", url, *state])
    assert done.exit_code == 0, done.output
    dataset = load_dataset(tmp_path / "state" / "datasets" / "prod")
    (source,) = dataset.manifest.sources
    assert (source.kind, source.rows, source.label) == ("episodes", 2, f"archive:{url}")
    assert json.loads(dataset.rows[0].model_dump_json())["meta"]["family"] == "production"
    missing = CliRunner().invoke(
        app, ["train", "dataset", "p2", "--from-archive", f"sqlite:///{tmp_path / 'none.db'}", *state]
    )
    assert missing.exit_code == 2 and "no event archive" in missing.output


def test_a_url_is_shown_without_its_password() -> None:
    assert (
        archive_label("postgresql+psycopg://loop:s3cret@db/archive")
        == "postgresql+psycopg://loop:***@db/archive"
    )
