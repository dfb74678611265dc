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


def test_a_fault_plan_becomes_the_sandbox_faults_that_reproduce_it(rcm_base: list[Task]) -> None:
    from adapters.rcm.world import World
    from envs.rcm.faults import split_faults

    world = {
        **rcm_base[0].initial_world,
        FAULTS_KEY: {
            "plan": [
                {"tool": "post_write_off", "kind": "timeout", "applied": True},
                {"tool": "get_claim", "kind": "http_503"},
            ],
            "calls": {},
        },
    }
    body, faults = split_faults(world, stall_s=2.0)
    assert FAULTS_KEY not in body and World.model_validate(body) == World.from_snapshot(
        rcm_base[0].initial_world
    )
    assert faults.timeout_s == 2.0
    assert [(r.endpoint, r.kind, r.first_n, r.apply_write, r.status) for r in faults.rules] == [
        ("post_write_off", "timeout", 1, True, 503),
        ("get_claim", "http_error", 1, True, 503),
    ]
    assert split_faults(rcm_base[0].initial_world, stall_s=2.0)[1].rules == ()


def test_what_the_sandbox_cannot_reproduce_is_refused_by_name(rcm_base: list[Task]) -> None:
    import pytest

    from envs.rcm.faults import NotInTheSandbox, split_faults

    later = {
        **rcm_base[0].initial_world,
        FAULTS_KEY: {"plan": [{"tool": "get_claim", "occurrence": 2, "kind": "http_503"}]},
    }
    with pytest.raises(NotInTheSandbox, match="later call"):
        split_faults(later, stall_s=2.0)
    bulletin = {
        **rcm_base[0].initial_world,
        FAULTS_KEY: {"plan": [], "bulletins": [{"bulletin_id": "B-1", "after_calls": 2}]},
    }
    with pytest.raises(NotInTheSandbox, match="bulletin"):
        split_faults(bulletin, stall_s=2.0)
