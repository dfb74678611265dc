"""Scripted live-system failures over the RCM sim: typed, tri-state, and part of the snapshot."""

from __future__ import annotations

from adapters.backend import ToolFailure
from adapters.rcm.args import GetClaimArgs, PostWriteOffArgs
from envs.rcm.faults import FAULTS_KEY, FaultyBackend
from schemas.tasks import Task
from schemas.tools import ToolOutcome


def backend_for(task: Task, *faults: dict[str, object]) -> FaultyBackend:
    return FaultyBackend.from_doc({**task.initial_world, FAULTS_KEY: {"plan": list(faults), "calls": {}}})


def failure(backend: FaultyBackend, tool: str, args: object) -> ToolFailure:
    try:
        backend.invoke(tool, args)  # type: ignore[arg-type]
    except ToolFailure as exc:
        return exc
    raise AssertionError("expected a failure")


def test_a_read_timeout_fails_retryably_then_answers(rcm_base: list[Task]) -> None:
    task = rcm_base[0]
    backend = backend_for(task, {"tool": "get_claim", "kind": "timeout"})
    args = GetClaimArgs(claim_id=task.work_item.item_id)
    exc = failure(backend, "get_claim", args)
    assert exc.outcome is ToolOutcome.FAILED and exc.error.kind == "timeout" and exc.error.retryable
    assert backend.invoke("get_claim", args) is not None


def test_a_write_timeout_is_unknown_and_may_have_landed(rcm_base: list[Task]) -> None:
    task = next(t for t in rcm_base if "resolution:write_off" in t.tags)
    args = PostWriteOffArgs(claim_id=task.work_item.item_id, amount=1.0, reason_code="contractual")
    for applied in (True, False):
        backend = backend_for(task, {"tool": "post_write_off", "kind": "timeout", "applied": applied})
        exc = failure(backend, "post_write_off", args)
        assert exc.outcome is ToolOutcome.UNKNOWN and not exc.error.retryable
        assert bool(backend.snapshot()["write_offs"]) is applied


def test_a_503_changes_nothing_and_the_snapshot_remembers_the_count(rcm_base: list[Task]) -> None:
    task = next(t for t in rcm_base if "resolution:write_off" in t.tags)
    args = PostWriteOffArgs(claim_id=task.work_item.item_id, amount=1.0, reason_code="contractual")
    backend = backend_for(task, {"tool": "post_write_off", "kind": "http_503"})
    exc = failure(backend, "post_write_off", args)
    assert exc.error.status_code == 503 and exc.error.retryable
    snapshot = backend.snapshot()
    assert snapshot["write_offs"] == {} and snapshot[FAULTS_KEY]["calls"] == {"post_write_off": 1}
    restored = FaultyBackend.from_doc(snapshot)
    restored.invoke("post_write_off", args)  # the second call goes through
    assert len(restored.snapshot()["write_offs"]) == 1


def test_a_world_without_faults_snapshots_exactly_as_the_adapter_does(rcm_base: list[Task]) -> None:
    task = rcm_base[0]
    assert FaultyBackend.from_doc(task.initial_world).snapshot() == task.initial_world
