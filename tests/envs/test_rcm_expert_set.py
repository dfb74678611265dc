"""The rcm expert set: hand-written cases load, their worlds validate, their golds replay cleanly
and score 1.0 under `rcm.v2`, and every wrong move scores below 1.0."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

import pytest

from adapters.rcm import World
from envs.contract import Trajectory
from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.expert import (
    ExpertCase,
    ExpertCaseError,
    PatchError,
    apply_patches,
    load_expert_cases,
    load_pending_cases,
)
from envs.rcm.expert.loader import load_case
from envs.rcm.expert.patches import MergePatch
from envs.rcm.x12check import remittance_problems
from envs.verifiers.base import VERIFIERS
from schemas.tools import ToolOutcome

DISAGREEMENTS: dict[tuple[str, str], str] = {}
"""Golds `rcm.v2` scores below 1.0 where the brief says the gold is right (see the verifier card).
Each is a strict expected failure: when the verifier is fixed the test fails until it is removed."""


@cache
def cases() -> tuple[ExpertCase, ...]:
    return tuple(load_expert_cases())


def by_id(case_id: str) -> ExpertCase:
    return next(c for c in cases() if c.id == case_id)


def run(case: ExpertCase, name: str, wrong: bool = False) -> Trajectory:
    pool = case.wrong_moves if wrong else case.golds
    trajectory = next(t for t in pool if t.name == name)
    return replay(DOMAINS.get("rcm"), case.task(), trajectory.tool_calls())


def golds() -> list[object]:
    params: list[object] = []
    for case in cases():
        for gold in case.golds:
            why = DISAGREEMENTS.get((case.id, gold.name))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(case.id, gold.name, marks=marks, id=f"{case.id}:{gold.name}"))
    return params


def wrong_moves() -> list[object]:
    return [
        pytest.param(case.id, move.name, id=f"{case.id}:{move.name}")
        for case in cases()
        for move in case.wrong_moves
    ]


def test_the_expert_set_has_at_least_forty_cases_with_unique_ids() -> None:
    ids = [case.id for case in cases()]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)


def test_at_least_ten_cases_have_more_than_one_acceptable_resolution() -> None:
    assert sum(len(case.golds) > 1 for case in cases()) >= 10


def test_every_case_world_validates_and_holds_its_claim() -> None:
    for case in cases():
        world = World.from_snapshot(case.world_snapshot)
        assert case.claim_id in world.claims, case.id
        assert (
            world.latest_remittance(case.claim_id) is not None or world.claims[case.claim_id].acknowledgments
        )


def test_every_case_cites_a_rule_and_covers_a_family() -> None:
    for case in cases():
        assert case.rule.section and len(case.rule.rule) > 20, case.id
        assert any(tag.startswith(("carc:", "edge:")) for tag in case.family), case.id
        assert case.wrong_moves, case.id


def test_the_set_covers_every_carc_row_of_the_brief() -> None:
    families = {tag for case in cases() for tag in case.family}
    rows = (
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
    )
    assert {f"carc:{row}" for row in rows} <= families


def test_a_case_becomes_an_rcm_v2_task_with_its_golds_and_spec() -> None:
    case = next(c for c in cases() if len(c.golds) > 1)
    task = case.task()
    assert task.verifier.verifier == "rcm.v2"
    assert task.verifier.outcome == case.spec
    assert task.gold_solution == case.golds[0].tool_calls()
    assert task.alternative_solutions == tuple(g.tool_calls() for g in case.golds[1:])
    assert task.provenance.kind == "synthetic" and task.provenance.generator == "rcm.expert.v1"
    assert f"expert:{case.id}" in task.tags and set(case.family) <= set(task.tags)
    assert task.work_item.item_id == case.claim_id
    assert task.work_item.payload["claim_id"] == case.claim_id


@pytest.mark.parametrize(("case_id", "name"), [(c.id, g.name) for c in cases() for g in c.golds])
def test_every_gold_replays_without_a_refused_or_malformed_call(case_id: str, name: str) -> None:
    case = by_id(case_id)
    trajectory = run(case, name)
    faulted = {f.tool for f in case.world.faults}
    for turn in trajectory.turns:
        if turn.result.outcome is not ToolOutcome.OK:
            assert turn.call.name in faulted, (turn.call, turn.result.error)
            assert turn.result.error is not None and turn.result.error.kind in ("timeout", "http")
    assert len(trajectory.turns) == len(next(g for g in case.golds if g.name == name).calls)


@pytest.mark.parametrize(("case_id", "name"), golds())
def test_every_gold_and_alternative_scores_one_under_rcm_v2(case_id: str, name: str) -> None:
    case = by_id(case_id)
    verdict = VERIFIERS.get("rcm.v2").score(case.task(), run(case, name))
    failed = [f"{c.name}: {c.explanation}" for c in verdict.checks if not c.passed]
    assert verdict.score == 1.0, failed


@pytest.mark.parametrize(("case_id", "name"), wrong_moves())
def test_every_wrong_move_scores_below_one_under_rcm_v2(case_id: str, name: str) -> None:
    case = by_id(case_id)
    verdict = VERIFIERS.get("rcm.v2").score(case.task(), run(case, name, wrong=True))
    assert verdict.score < 1.0


def test_doing_nothing_scores_zero_on_every_case() -> None:
    for case in cases():
        task = case.task()
        verdict = VERIFIERS.get("rcm.v2").score(task, replay(DOMAINS.get("rcm"), task, ()))
        assert verdict.score == 0.0, case.id


def test_a_patch_to_a_path_that_does_not_exist_fails_loudly() -> None:
    with pytest.raises(PatchError, match="CLM-9999"):
        apply_patches({"claims": {}}, [MergePatch(op="merge", path="claims.CLM-9999", value={})])


def test_a_case_whose_patch_misspells_a_field_does_not_load() -> None:
    source = files("envs.rcm.expert").joinpath("cases", "x01-co16-n290-npi.json")
    body = json.loads(source.read_text(encoding="utf-8"))
    body["world"] = {"patches": [{"op": "set", "path": "claims.CLM-1001.renderng_npi", "value": "1"}]}

    class Source:
        name = "x01-co16-n290-npi.json"

        def read_text(self, encoding: str = "utf-8") -> str:
            return json.dumps(body)

    with pytest.raises(ExpertCaseError, match="renderng_npi"):
        load_case(Source())  # type: ignore[arg-type]


def test_the_case_files_load_as_package_data() -> None:
    folder = files("envs.rcm.expert").joinpath("cases")
    names = sorted(f.name for f in folder.iterdir() if f.name.endswith(".json"))
    assert names == [f"{case.id}.json" for case in cases()]


def test_every_case_remittance_passes_pyx12() -> None:
    problems = {case.id: remittance_problems(case.task()) for case in cases()}
    assert {case_id: found for case_id, found in problems.items() if found} == {}


def test_a_pending_case_is_one_the_logic_still_refuses() -> None:
    """`pending/` holds cases the brief decides but the tools refuse: once the logic follows the
    brief, this fails until the case moves to `cases/`."""
    for case in load_pending_cases():
        trajectory = replay(DOMAINS.get("rcm"), case.task(), case.golds[0].tool_calls())
        assert any(turn.result.outcome is not ToolOutcome.OK for turn in trajectory.turns), case.id
