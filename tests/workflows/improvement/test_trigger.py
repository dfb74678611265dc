"""The promoted-tasks trigger counts what was added since the last cycle it started."""

from __future__ import annotations

import json
from pathlib import Path

from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetRegistry
from workflows.improvement.trigger import new_promoted_tasks
from workflows.improvement.workflows import cycle_id_from, cycle_workflow_id


def test_tasks_added_since_the_marked_version_are_counted(tmp_path: Path) -> None:
    registry = TaskSetRegistry(tmp_path / "sets")
    marker = tmp_path / "marker.json"
    assert new_promoted_tasks(registry, "rcm-promoted", marker) == (0, 0)
    tasks = generate_base(0, per_carc=1)
    registry.publish("rcm-promoted", tasks[:3])
    assert new_promoted_tasks(registry, "rcm-promoted", marker) == (1, 3)
    marker.write_text(json.dumps({"version": 1, "tasks": 3}))
    registry.publish("rcm-promoted", tasks[:5])
    assert new_promoted_tasks(registry, "rcm-promoted", marker) == (2, 2)


def test_a_scheduled_runs_workflow_id_names_its_cycle() -> None:
    assert cycle_workflow_id("rcm-promoted-v3") == "improve-rcm-promoted-v3"
    assert cycle_id_from("improve-nightly-2026-12-01T00:00:00Z") == "nightly-2026-12-01T00-00-00Z"
