"""Task sets are immutable, content-hashed and versioned; tampering is refused on load."""

from __future__ import annotations

import json

import pytest

from envs.tasksets import TaskSetError, TaskSetRegistry, TaskSetTampered, manifest_hash
from schemas.tasks import Task


def test_publish_writes_a_new_version_each_time_and_never_overwrites(
    registry: TaskSetRegistry, toy_tasks: list[Task]
) -> None:
    first = registry.publish("toy", toy_tasks[:4], "first")
    before = (registry.root / "toy" / "v0001.jsonl").read_bytes()
    second = registry.publish("toy", toy_tasks[:6], "second")
    assert (first.version, second.version) == (1, 2)
    assert second.parent_version == 1 and first.parent_version is None
    assert registry.versions("toy") == [1, 2]
    assert (registry.root / "toy" / "v0001.jsonl").read_bytes() == before
    assert len(registry.load("toy", 1)) == 4 and len(registry.load("toy")) == 6


def test_load_returns_the_tasks_in_order_with_their_hashes(
    registry: TaskSetRegistry, toy_tasks: list[Task]
) -> None:
    manifest = registry.publish("toy", toy_tasks, "")
    loaded = registry.load("toy")
    assert list(loaded.tasks) == toy_tasks
    assert loaded.manifest == manifest
    assert manifest.task_hashes == tuple(t.compute_hash() for t in toy_tasks)
    assert manifest.content_hash == manifest_hash(manifest.task_hashes)


def test_identical_content_has_identical_set_hash_across_versions(
    registry: TaskSetRegistry, toy_tasks: list[Task]
) -> None:
    a = registry.publish("toy", toy_tasks, "a")
    b = registry.publish("toy", toy_tasks, "b")
    c = registry.publish("toy", toy_tasks[::-1], "reordered")
    assert a.content_hash == b.content_hash != c.content_hash


def test_an_edited_task_is_refused_with_its_id(registry: TaskSetRegistry, toy_tasks: list[Task]) -> None:
    registry.publish("toy", toy_tasks, "")
    path = registry.root / "toy" / "v0001.jsonl"
    lines = path.read_text().splitlines()
    doc = json.loads(lines[2])
    doc["initial_world"]["tickets"][doc["work_item"]["item_id"]]["amount"] = "0.01"
    lines[2] = json.dumps(doc)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TaskSetTampered, match=f"{toy_tasks[2].task_id}.*modified"):
        registry.load("toy")


def test_a_dropped_line_is_refused(registry: TaskSetRegistry, toy_tasks: list[Task]) -> None:
    registry.publish("toy", toy_tasks, "")
    path = registry.root / "toy" / "v0001.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[1:]))
    with pytest.raises(TaskSetTampered, match="holds 11 tasks"):
        registry.load("toy")


def test_an_edited_manifest_is_refused(registry: TaskSetRegistry, toy_tasks: list[Task]) -> None:
    registry.publish("toy", toy_tasks, "")
    path = registry.root / "toy" / "v0001.manifest.json"
    doc = json.loads(path.read_text())
    doc["task_hashes"][0] = "0" * 64
    path.write_text(json.dumps(doc))
    with pytest.raises(TaskSetTampered, match="manifest edited"):
        registry.load("toy")


def test_a_version_without_manifest_is_incomplete_and_skipped(
    registry: TaskSetRegistry, toy_tasks: list[Task]
) -> None:
    registry.publish("toy", toy_tasks, "")
    (registry.root / "toy" / "v0002.jsonl").write_text("half written")
    assert registry.versions("toy") == [1]
    assert registry.publish("toy", toy_tasks, "").version == 3


def test_bad_input_is_refused_clearly(registry: TaskSetRegistry, toy_tasks: list[Task]) -> None:
    with pytest.raises(TaskSetError, match="invalid task-set name"):
        registry.publish("../escape", toy_tasks, "")
    with pytest.raises(TaskSetError, match="duplicate task ids"):
        registry.publish("toy", [toy_tasks[0], toy_tasks[0]], "")
    with pytest.raises(TaskSetError, match="no task set"):
        registry.load("missing")
    registry.publish("toy", toy_tasks, "")
    with pytest.raises(TaskSetError, match="no version 9"):
        registry.load("toy", 9)
