"""Production episodes the verifier passed and a later outcome confirmed become dataset rows, the
runtime's own messages, with PHI replaced like every other source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from loopline.cli import app
from tests.training.data.production_events import archived
from training.data import DatasetSpec, LoadedTaskSet, build_dataset, task_rows, write_dataset
from training.data.production import EpisodeSourceError, episode_set, read_events


def _tasks(small_base: LoadedTaskSet, n: int = 4) -> list:  # type: ignore[type-arg]
    return list(small_base.tasks[:n])


def test_only_verifier_passed_and_outcome_confirmed_episodes_are_taken(small_base: LoadedTaskSet) -> None:
    tasks = _tasks(small_base)
    events = archived(tasks, ["paid", "denied", None, "appeal_won"])
    found = episode_set(events, label="episodes:test")
    assert {r.meta.task_id for r in found.rows} == {tasks[0].task_id, tasks[3].task_id}
    assert found.episodes_seen == 4
    assert found.skipped == {"no confirming outcome yet": 1, "outcome contradicted it": 1}


def test_an_episode_row_is_the_message_sequence_the_gold_row_holds(small_base: LoadedTaskSet) -> None:
    task = _tasks(small_base, 1)[0]
    (row,) = episode_set(archived([task], ["paid"]), label="episodes:test").rows
    (gold,) = task_rows(task, task_set="x", role="primary")[:1]
    assert row.messages == gold.messages and row.tools == gold.tools
    assert row.meta.solution == "episode" and row.extra["outcomes"] == ["paid"]


def test_an_episode_the_verifier_failed_is_left_out(small_base: LoadedTaskSet) -> None:
    task = _tasks(small_base, 1)[0]
    events = archived([task], ["paid"])
    scored = next(e for e in events if e.type.startswith("loopline.verifier.scored"))
    failed = scored.data.verdict.model_copy(update={"passed": False, "score": 0.0})  # type: ignore[attr-defined]
    events[events.index(scored)] = scored.model_copy(
        update={"data": scored.data.model_copy(update={"verdict": failed})}
    )
    found = episode_set(events, label="episodes:test")
    assert found.rows == () and found.skipped == {"verifier did not pass it": 1}


def test_a_dataset_mixes_episodes_with_task_sets_and_records_them_in_the_manifest(
    small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    episodes = episode_set(archived(_tasks(small_base, 3), ["paid", "paid", "denied"]), label="episodes:x")
    built = build_dataset(
        DatasetSpec(name="mix", primary=(), replay=(small_base,), episodes=(episodes,), replay_ratio=0.5)
    )
    source = next(s for s in built.manifest.sources if s.kind == "episodes")
    assert (source.rows, source.tasks, source.skipped) == (2, 3, {"outcome contradicted it": 1})
    assert built.manifest.counts["family"]["production"] == 2 and built.manifest.counts["role"]["replay"] == 2
    write_dataset(built, tmp_path)


def test_an_events_file_with_a_broken_line_names_it(small_base: LoadedTaskSet, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    events = archived(_tasks(small_base, 1), ["paid"])
    path.write_text("\n".join(e.model_dump_json() for e in events) + "\n{not json\n")
    with pytest.raises(EpisodeSourceError, match=f"events.jsonl:{len(events) + 1}: not a Loopline event"):
        read_events(path)
    path.write_text("\n".join(e.model_dump_json() for e in events) + "\n")
    assert [e.id for e in read_events(path)] == [e.id for e in events]
    assert json.loads(path.read_text().splitlines()[0])["type"] == "loopline.episode.started.v2"


def test_train_dataset_learns_confirmed_episodes_from_an_events_file(
    small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    events = tmp_path / "archive.jsonl"
    events.write_text(
        "".join(e.model_dump_json() + "\n" for e in archived(_tasks(small_base, 2), ["paid", None]))
    )
    state = ["--state", str(tmp_path / "state")]
    done = CliRunner().invoke(app, ["train", "dataset", "ep", "--episodes", str(events), *state])
    assert done.exit_code == 0, done.output
    assert "no confirming outcome yet: 1" in done.output
    manifest = json.loads((tmp_path / "state" / "datasets" / "ep" / "manifest.json").read_text())
    assert manifest["sources"][0]["kind"] == "episodes" and manifest["rows"] == 1
    events.write_text("not an event\n")
    broken = CliRunner().invoke(app, ["train", "dataset", "ep2", "--episodes", str(events), *state])
    assert broken.exit_code == 2 and "archive.jsonl:1: not a Loopline event" in " ".join(
        broken.output.split()
    )
