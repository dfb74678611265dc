"""The RCM task generator: seeded, covering every CARC row, with a held-out edge distribution."""

from __future__ import annotations

from datetime import date

from adapters.rcm.codes import CARC, DEACTIVATED_CARC
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
RULE_EDGES = {
    "underpaid_contract",
    "abn_invalid",
    "medicare_receipt",
    "cob_secondary",
    "duplicate_in_process",
    "auth_other_payer",
    "deadline_queue",
    "rule_change_dated",
    "rule_change_midqueue",
}
"""Families for the rules a billing office applies that the simple table hides."""
REMIT_EDGES = {
    "queue_hand_off",
    "reversal_take_back",
    "late_clean_claim",
    "paid_twice",
    "units_reduced",
    "managed_care_plan",
    "negotiated_discount",
}
"""Families for the moves beyond the denial table (the brief's last section)."""


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
    assert set(EDGE) == BRIEF_EDGES | RULE_EDGES | REMIT_EDGES
    assert all("dist:edge" in t.tags and t.provenance.distribution == "edge" for t in rcm_edge)
    assert {
        tag.removeprefix("edge:") for t in rcm_edge for tag in t.tags if tag.startswith("edge:")
    } == BRIEF_EDGES | RULE_EDGES | REMIT_EDGES
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


def test_an_unprocessable_claim_goes_out_as_a_new_claim_never_a_replacement(rcm_base: list[Task]) -> None:
    returned = [t for t in rcm_base if "rarc:MA130" in t.tags]
    assert returned, "the base set must hold CO-16 denials returned as unprocessable (MA130)"
    for task in returned:
        assert "resolution:new_claim" in task.tags
        names = [c.name for c in task.gold_solution]
        assert "submit_new_claim" in names and "submit_replacement_claim" not in names, task.task_id
        assert "submit_appeal" not in names
    adjudicated = [t for t in rcm_base if "carc:16" in t.tags and "rarc:MA130" not in t.tags]
    assert adjudicated and all("resolution:replacement" in t.tags for t in adjudicated)


def test_timely_filing_is_proved_by_the_277ca_not_by_a_scanned_document(rcm_base: list[Task]) -> None:
    co29 = [t for t in rcm_base if "carc:29" in t.tags]
    in_time = [t for t in co29 if "variant:in_time" in t.tags]
    assert in_time and all("resolution:appeal" in t.tags for t in in_time)
    without_report = [
        t
        for t in in_time
        if not any(d["kind"] == "proof_of_timely_filing" for d in t.initial_world["documents"].values())
    ]
    assert without_report, "some in-time claims must have no clearinghouse report on file"
    for task in in_time:
        appeal = next(c for c in task.gold_solution if c.name == "submit_appeal")
        assert appeal.arguments["basis"] == "timely_filing" and "277CA" in appeal.arguments["reason"]
    rejected_first = [t for t in co29 if "variant:rejected_in_time" in t.tags]
    assert rejected_first, "a rejection inside the limit must appear, and prove nothing"
    for task in [*rejected_first, *(t for t in co29 if "variant:late" in t.tags)]:
        assert not any(c.name == "submit_appeal" for c in task.gold_solution), task.task_id
        assert not any(c.name == "transfer_to_patient_responsibility" for c in task.gold_solution)


def test_unknown_carc_cases_use_codes_absent_from_the_current_carc_list(rcm_edge: list[Task]) -> None:
    codes = {
        tag.removeprefix("code:")
        for t in rcm_edge
        if "edge:unknown_carc" in t.tags
        for tag in t.tags
        if tag.startswith("code:")
    }
    assert codes and not codes & set(CARC)
    assert not codes & {"A6", "B4", "W1", "P21"}  # current codes, not retired ones
    assert all(code in DEACTIVATED_CARC or code.startswith("Z") for code in codes)
