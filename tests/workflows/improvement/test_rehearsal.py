"""The cycle's dataset: the rehearsal adds ordinary cases of the promoted cases' families to the replay buffer."""

from __future__ import annotations

import json
from pathlib import Path

from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetRegistry
from tests.workflows.improvement.tiny import NEW_FAMILIES
from training.data.sources import task_family
from workflows.improvement.activities import ImprovementActivities
from workflows.improvement.models import CycleInput, CycleSettings, TaskSource


def _cycle(tmp_path: Path, rehearsal: TaskSource) -> CycleInput:
    new = [t for t in generate_base(0, per_carc=1) if task_family(t) in NEW_FAMILIES]
    TaskSetRegistry(tmp_path / "tasksets").publish("tiny-promoted", new)
    return CycleInput(
        cycle_id=f"rehearse-{len(rehearsal.specs)}",
        settings=CycleSettings(
            state_dir=str(tmp_path / "state"),
            tasksets_root=str(tmp_path / "tasksets"),
            release_db_url=f"sqlite:///{tmp_path / 'release.db'}",
            base_model=str(tmp_path / "no-model"),  # building a dataset reads no model
            primary=TaskSource(specs=("tiny-promoted",)),
            rehearsal=rehearsal,
            replay_ratio=0.9,
        ),
    )


def _rows(folder: str) -> list[dict[str, object]]:
    lines = (Path(folder) / "data.jsonl").read_text().splitlines()
    return [json.loads(line)["meta"] for line in lines]


def test_the_rehearsal_replays_only_the_named_families_from_its_own_seeds(tmp_path: Path) -> None:
    rehearsal = TaskSource(specs=("rcm-base",), seeds=(7,), families=("carc:45",))
    built = ImprovementActivities().build_dataset(_cycle(tmp_path, rehearsal))
    rows = _rows(built.folder)
    replay = [r for r in rows if r["role"] == "replay"]
    primary = [r for r in rows if r["role"] == "primary"]
    assert primary and replay  # nothing else in the buffer: the rehearsal is the replay
    assert {r["family"] for r in replay} == {"carc:45"}
    assert {r["task_set"] for r in replay} == {"rcm-base (seed 7) [carc:45]"}
    # the promoted set's own CO-45 task is primary, never counted as replay
    assert all(r["task_set"].startswith("tiny-promoted") for r in primary)


def test_without_a_rehearsal_or_replay_the_dataset_is_the_primary_rows_alone(tmp_path: Path) -> None:
    built = ImprovementActivities().build_dataset(_cycle(tmp_path, TaskSource()))
    rows = _rows(built.folder)
    assert rows and all(r["role"] == "primary" for r in rows)
    assert {r["family"] for r in rows} == {"carc:45", "carc:97"}
