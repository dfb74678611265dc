"""Fresh instances of a case: other people, ids and dates; the same situation and the same answer."""

from __future__ import annotations

import json
import random

from envs.instances import case_of, fresh_instances, instance, renamer, shift_dates
from envs.rcm.instances import identities
from envs.rcm.tasks import generate_base
from envs.validate import validate_task
from training.data.sources import task_family
from workflows.promotion.candidate import gates


def test_dates_move_together_and_invalid_ones_stay() -> None:
    text = "served 2025-01-17, accepted 2025-03-16T10:00:00Z; ref 2025-13-40; id 120250101"
    moved = shift_dates(text, 30)
    assert moved == "served 2025-02-16, accepted 2025-04-15T10:00:00Z; ref 2025-13-40; id 120250101"


def test_names_are_replaced_as_whole_words_in_either_case() -> None:
    rename = renamer({"CLM-1006": "CLM-5725"})
    assert rename("claim CLM-1006, appeal.clm-1006") == "claim CLM-5725, appeal.clm-5725"
    assert rename("CLM-10061 XCLM-1006") == "CLM-10061 XCLM-1006"


def test_an_instance_is_the_same_case_for_another_patient_and_claim_on_other_dates() -> None:
    for task in generate_base(0, per_carc=1):
        made = instance(task, 0, seed=1, identities=identities)
        old_claim, new_claim = task.work_item.item_id, made.work_item.item_id
        assert new_claim != old_claim
        text = json.dumps(made.model_dump(mode="json")["initial_world"])
        assert old_claim not in text and new_claim in text
        old_patient = next(iter(task.initial_world["patients"].values()))
        assert old_patient["last_name"] not in text
        assert made.initial_world["today"] != task.initial_world["today"]
        assert made.work_item.payload["adjustment_codes"] == task.work_item.payload["adjustment_codes"]
        assert [c.name for c in made.gold_solution] == [c.name for c in task.gold_solution]
        assert task_family(made) == f"case:{task.task_id}"  # an instance's family is its case
        assert case_of(made) == task.task_id
        report = validate_task(made)
        assert report.ok, (task.task_id, report.problems)


def test_instances_pass_the_promotion_gates_and_are_reproducible() -> None:
    tasks = generate_base(0, per_carc=1)[:4]
    first = fresh_instances(tasks, 2, seed=3, identities=identities, check=lambda t: gates(t).ok)
    again = fresh_instances(tasks, 2, seed=3, identities=identities)
    assert [t.compute_hash() for t in first] == [t.compute_hash() for t in again]
    assert len(first) == 8 and len({t.task_id for t in first}) == 8
    other = fresh_instances(tasks, 2, seed=4, identities=identities)
    assert not {t.compute_hash() for t in other} & {t.compute_hash() for t in first}


def test_a_check_that_refuses_an_instance_is_never_overruled() -> None:
    tasks = generate_base(0, per_carc=1)[:2]
    refused = tasks[0].task_id
    kept = fresh_instances(tasks, 2, seed=1, identities=identities, check=lambda t: case_of(t) != refused)
    assert {case_of(t) for t in kept} == {tasks[1].task_id}


def test_identities_keep_the_member_id_layout() -> None:
    task = generate_base(0, per_carc=1)[0]
    mapping = identities(task, random.Random(0))
    for old, new in mapping.items():
        if old.startswith(("CLM-", "P-")):
            continue
        if any(c.isdigit() for c in old):
            assert len(new) == len(old) and [c.isdigit() for c in new] == [c.isdigit() for c in old]
