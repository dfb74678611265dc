"""The RCM task generator: seeded, covering every CARC row, with a held-out edge distribution."""

from __future__ import annotations

from datetime import date

from adapters.rcm.world import World
from envs.rcm.cases import BASE
from envs.rcm.cases_edge import EDGE
from envs.rcm.tasks import generate_base, generate_edge
from schemas.tasks import Task

BRIEF_ROWS = {
    "16",
    "4",
    "15",
    "197",
    "29",
    "18",
    "22",
    "27",
    "31",
    "50",
    "97",
    "109",
    "45",
    "1",
    "2",
    "3",
    "B7",
}
BRIEF_EDGES = {
    "multi_carc", "deductible_only", "duplicate_of_denied", "rule_change_telehealth", "rule_change_retro_window",
    "unknown_carc", "contradictory_remit", "eligibility_conflict", "appeal_window_closed", "tool_error",
    "prompt_injection",
}  # fmt: skip


def hashes(tasks: list[Task]) -> list[str]:
    return [t.compute_hash() for t in tasks]


def test_the_same_seed_gives_the_same_content_hashes() -> None:
    assert hashes(generate_base(5, per_carc=2)) == hashes(generate_base(5, per_carc=2))
    assert hashes(generate_edge(5, per_kind=1)) == hashes(generate_edge(5, per_kind=1))


def test_a_different_seed_gives_different_tasks() -> None:
    a, b = generate_base(5, per_carc=2), generate_base(6, per_carc=2)
    assert [t.task_id for t in a] == [t.task_id for t in b]  # same slots ...
    assert not set(hashes(a)) & set(hashes(b))  # ... different content in every one


def test_sizes_and_ids(rcm_base: list[Task], rcm_edge: list[Task]) -> None:
    assert len(rcm_base) >= 300 and len(rcm_edge) >= 80
    ids = [t.task_id for t in [*rcm_base, *rcm_edge]]
    assert len(ids) == len(set(ids))


def test_every_row_of_the_carc_table_is_covered(rcm_base: list[Task]) -> None:
    assert set(BASE) == BRIEF_ROWS
    counts: dict[str, int] = {}
    for task in rcm_base:
        counts[task.tags[0].removeprefix("carc:")] = counts.get(task.tags[0].removeprefix("carc:"), 0) + 1
    assert set(counts) == BRIEF_ROWS and min(counts.values()) >= 15


def test_the_edge_set_is_held_out_and_tagged(rcm_base: list[Task], rcm_edge: list[Task]) -> None:
    assert set(EDGE) == BRIEF_EDGES
    assert all("dist:edge" in t.tags and t.provenance.distribution == "edge" for t in rcm_edge)
    assert {
        tag.removeprefix("edge:") for t in rcm_edge for tag in t.tags if tag.startswith("edge:")
    } == BRIEF_EDGES
    assert not any(tag.startswith("edge:") for t in rcm_base for tag in t.tags)
    assert all("dist:base" in t.tags for t in rcm_base)


def test_worlds_are_varied_and_carry_phi(rcm_base: list[Task]) -> None:
    worlds = [World.from_snapshot(t.initial_world) for t in rcm_base]
    focus = [w.claims[t.work_item.item_id] for w, t in zip(worlds, rcm_base, strict=True)]
    assert len({c.patient_last_name for c in focus}) > 20 and len({c.patient_birth_date for c in focus}) > 200
    assert len({c.member_id for c in focus}) > 250
    assert len({c.payer_id for c in focus}) >= 6
    charges = sorted(c.total_charge for c in focus)
    assert charges[0] < 100 < 1000 < charges[-1]
    assert len({w.today for w in worlds}) > 100


def test_deadlines_near_and_past_are_represented(rcm_base: list[Task], rcm_edge: list[Task]) -> None:
    near = sum("deadline:appeal_near" in t.tags for t in rcm_base)
    assert near >= 30, near
    assert sum("deadline:retro_near" in t.tags for t in rcm_base) >= 1
    for task in (t for t in rcm_edge if "edge:appeal_window_closed" in t.tags):
        world = World.from_snapshot(task.initial_world)
        remit = world.latest_remittance(task.work_item.item_id)
        assert remit is not None
        window = world.payers[remit.payer_id].rules.appeal_window_days
        assert (world.today - remit.production_date).days > window


def test_the_work_item_shows_what_a_work_queue_would(rcm_base: list[Task]) -> None:
    item = rcm_base[0].work_item
    assert item.domain == "rcm" and item.item_id == item.payload["claim_id"]
    assert item.payload["adjustment_codes"] and date.fromisoformat(item.payload["worked_on"])
    assert "CO" in item.instructions and item.payload["write_off_approval_limit"] == 500.0
