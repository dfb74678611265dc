"""A credit deal-system world rebuilt from a recorded episode's answers (`adapters/credit/drafts.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.credit.drafts import reconstruct_world
from adapters.credit.world import World
from adapters.drafting.recording import RecordingError, recorded_episode
from envs.credit import generate_base, generate_edge
from loopline.demo.episodes import record, redactor
from schemas import Event, Task
from schemas.events import ToolCalled, ToolReturned


def episode_of(task: Task, tmp_path: Path) -> list[Event]:
    return record(task, redactor(tmp_path))


def edge(kind: str) -> Task:
    return next(t for t in generate_edge(seed=5, per_kind=1) if f"edge:{kind}" in t.tags)


def test_the_package_an_episode_read_is_rebuilt_as_it_stood(tmp_path: Path) -> None:
    task = edge("currency_mismatch")
    rebuilt = reconstruct_world(recorded_episode(episode_of(task, tmp_path), "credit"))
    source = World.model_validate(task.initial_world)
    [package_id] = source.packages

    def facts(world: World) -> dict[str, object]:  # periods in the order the deal system lists them
        package = world.packages[package_id]
        periods = sorted(package.periods, key=lambda p: (p.end, p.kind))
        return package.model_copy(update={"periods": tuple(periods)}).model_dump(exclude={"answers"})

    assert facts(rebuilt) == facts(source)
    assert rebuilt.policy == source.policy and rebuilt.today == source.today


def test_a_missing_quarter_delivered_on_request_becomes_the_borrowers_answer(tmp_path: Path) -> None:
    task = next(
        t for t in generate_edge(seed=5, per_kind=4)
        if "edge:missing_quarter" in t.tags and "class:request_information" not in t.tags
    )  # fmt: skip
    rebuilt = reconstruct_world(recorded_episode(episode_of(task, tmp_path), "credit"))
    source = World.model_validate(task.initial_world)
    [package_id] = source.packages
    delivered = [a for a in rebuilt.packages[package_id].answers if a.period is not None]
    assert delivered and delivered[0] in source.packages[package_id].answers
    assert len(rebuilt.packages[package_id].periods) == len(source.packages[package_id].periods)


def test_the_ids_and_the_date_the_writes_were_issued_set_counters_and_today(tmp_path: Path) -> None:
    task = generate_base(seed=5, per_recipe=1)[0]
    source = World.model_validate(task.initial_world)
    shifted = task.model_copy(
        update={"initial_world": source.model_copy(update={"counters": {"recommendation": 6}}).snapshot()}
    )
    rebuilt = reconstruct_world(recorded_episode(episode_of(shifted, tmp_path), "credit"))
    assert rebuilt.counters == {"recommendation": 6}
    assert rebuilt.today == source.today


def test_an_episode_that_never_read_the_term_sheet_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    events = episode_of(edge("covenant_lite"), tmp_path)
    dropped = {
        e.data.call.call_id
        for e in events
        if isinstance(e.data, ToolCalled) and e.data.call.name == "get_term_sheet"
    }
    kept = [
        e for e in events
        if not (isinstance(e.data, ToolCalled) and e.data.call.call_id in dropped)
        and not (isinstance(e.data, ToolReturned) and e.data.call_id in dropped)
    ]  # fmt: skip
    with pytest.raises(RecordingError, match="never read the term sheet"):
        reconstruct_world(recorded_episode(kept, "credit"))


def test_an_rcm_episode_is_not_read_as_a_credit_one(tmp_path: Path) -> None:
    events = episode_of(edge("restatement"), tmp_path)
    with pytest.raises(RecordingError, match="not rcm"):
        recorded_episode(events, "rcm")


def test_an_overview_without_the_shape_get_package_gives_is_refused_with_a_clear_error(
    tmp_path: Path,
) -> None:
    events = episode_of(edge("covenant_lite"), tmp_path)
    broken = [
        e.model_copy(update={"data": e.data.model_copy(update={"result": {"package_id": "PKG-1"}})})
        if isinstance(e.data, ToolReturned) and "borrower" in e.data.result
        else e
        for e in events
    ]
    with pytest.raises(RecordingError, match="do not make a credit package"):
        reconstruct_world(recorded_episode(broken, "credit"))
