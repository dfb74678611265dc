"""ATIF round trip on the demo episodes: archive → `loopline export atif` → validation against the
vendored published schema → `loopline import atif` → the same verdicts; and trajectories written
by another stack map onto their task by the work item and are scored by what their calls do."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive
from envs.rollout.episode import EpisodeRecord
from loopline.cli import app
from loopline.interop.atif.export import episode_trajectory
from loopline.interop.atif.imports import AtifImportError, import_trajectory
from loopline.interop.atif.schema import SCHEMA_FILE, atif_problems
from schemas.tasks import Task
from tests.loopline.interop.conftest import write_tasks


def _archive(tmp_path: Path, records: list[EpisodeRecord]) -> str:
    url = f"sqlite:///{tmp_path / 'archive.db'}"
    archive = SqlEventArchive(url)
    archive.create_schema()
    archive.append([ArchiveRecord.of(e) for r in records for e in r.events])
    return url


def test_every_demo_episode_round_trips_to_the_same_verdict(
    demo_episodes: list[EpisodeRecord], rcm_tasks: list[Task], credit_tasks: list[Task], tmp_path: Path
) -> None:
    assert {r.verdict.passed for r in demo_episodes} == {True, False}
    url = _archive(tmp_path, demo_episodes)
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    out = tmp_path / "atif"
    done = CliRunner().invoke(app, ["export", "atif", "--since", since, "--db-url", url, "--out", str(out)])
    assert done.exit_code == 0, done.output
    files = sorted(out.glob("*.json"))
    assert len(files) == len(demo_episodes)
    published = jsonschema_rs.validator_for(json.loads(SCHEMA_FILE.read_text()))
    docs = {f.stem: json.loads(f.read_text()) for f in files}
    for doc in docs.values():
        assert published.is_valid(doc) and atif_problems(doc) == [] and doc["schema_version"] == "ATIF-v1.7"
    tasks = [*rcm_tasks, *credit_tasks]
    for record in demo_episodes:
        found = import_trajectory(docs[record.episode_id], tasks)
        assert (found.task_id, found.verdict) == (record.task_id, record.verdict)
        assert found.recorded == record.verdict
        assert found.record is not None and found.record.calls == record.calls
    task_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    events = tmp_path / "replayed.jsonl"
    imported = CliRunner().invoke(
        app, ["import", "atif", *map(str, files), "-t", str(task_file), "--events-out", str(events)]
    )
    assert imported.exit_code == 0, imported.output
    assert imported.output.count("same") == len(demo_episodes)
    replayed = [json.loads(line)["type"] for line in events.read_text().splitlines()]
    assert replayed == [e.type for r in demo_episodes for e in r.events], (
        "the replay records what the episode did"
    )


def test_one_episode_exports_alone_and_a_missing_one_is_named(
    demo_episodes: list[EpisodeRecord], tmp_path: Path
) -> None:
    url = _archive(tmp_path, demo_episodes[:2])
    one = demo_episodes[1].episode_id
    out = tmp_path / "one"
    done = CliRunner().invoke(app, ["export", "atif", "--episode", one, "--db-url", url, "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert [f.stem for f in out.glob("*.json")] == [one]
    missing = CliRunner().invoke(
        app, ["export", "atif", "--episode", "nope", "--db-url", url, "--out", str(out)]
    )
    assert missing.exit_code == 1 and "no episode" in missing.output


def _foreign(task: Task) -> dict[str, Any]:
    """What another stack writes for the gold solution: its own ids and agent, no Loopline extras."""
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "user", "message": f"Please work item {task.work_item.item_id}."}
    ]
    for i, call in enumerate(task.gold_solution, start=2):
        steps.append(
            {
                "step_id": i,
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": f"t{i}", "function_name": call.name, "arguments": call.arguments}
                ],
            }
        )
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "done"})
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "other-stack-run",
        "agent": {"name": "other-agent", "version": "9"},
        "steps": json.loads(json.dumps(steps, default=str)),
    }


def test_a_foreign_trajectory_maps_onto_its_task_and_is_scored_by_its_calls(
    rcm_tasks: list[Task], credit_tasks: list[Task]
) -> None:
    tasks = [*rcm_tasks, *credit_tasks]
    for task in (rcm_tasks[2], credit_tasks[1]):
        found = import_trajectory(_foreign(task), tasks)
        assert found.task_id == task.task_id and found.recorded is None
        assert found.verdict is not None and found.verdict.passed
    lost = _foreign(rcm_tasks[0])
    lost["steps"][0]["message"] = "work something else"
    assert import_trajectory(lost, tasks).unmatched == "no task's work item matches the trajectory"


def test_a_document_that_is_not_atif_is_refused_with_the_reasons(demo_episodes: list[EpisodeRecord]) -> None:
    doc = json.loads(json.dumps(episode_trajectory(demo_episodes[0].events), default=str))
    doc["steps"][1]["step_id"] = 7
    with pytest.raises(AtifImportError, match=r"steps\[1\].step_id: expected 2"):
        import_trajectory(doc, [])
    doc["steps"][1]["step_id"] = 2
    doc["steps"][0]["tool_calls"] = []
    assert any("only for agent steps" in p for p in atif_problems(doc))
    assert atif_problems({"schema_version": "ATIF-v1.7", "steps": []})
