"""No raw PHI value of the source reaches a dataset; surrogates keep what was equal equal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from envs.catalog import generate
from envs.domain import DOMAINS
from envs.rcm.domain import DOMAIN
from envs.tasksets import manifest_hash
from schemas.events import EpisodeStarted
from tests.training.data.production_events import archived
from training.data import (
    DatasetSpec,
    LoadedTaskSet,
    PhiScrubber,
    build_dataset,
    raw_phi_values,
    task_rows,
    write_dataset,
)
from training.data.production import episode_set
from training.data.rows import ChatRow

SPECS = {spec.name: spec for spec in DOMAIN.tool_specs()}


def strings(value: Any) -> Iterator[str]:
    """Every string inside a value, reading JSON text (tool results, call arguments) as JSON too."""
    if isinstance(value, str):
        yield value
        try:
            inner = json.loads(value)
        except ValueError:
            return
        if isinstance(inner, dict | list):
            yield from strings(inner)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def leaked(values: set[str], texts: list[str]) -> set[str]:
    return {v for v in values if any(v in text for text in texts)}


def source_rows(*sets: LoadedTaskSet) -> list[ChatRow]:
    return [r for s in sets for t in s.tasks for r in task_rows(t, task_set=s.label, role="primary")]


def test_no_raw_phi_value_of_the_source_appears_in_any_dataset_file(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet, tmp_path: Path
) -> None:
    raw_rows = source_rows(small_base, small_edge)
    raw = raw_phi_values(raw_rows, SPECS)
    raw_texts = [s for row in raw_rows for s in strings(row.model_dump(mode="json"))]
    assert len(leaked(raw, raw_texts)) == len(raw) > 100  # the source does hold them

    folder = write_dataset(
        build_dataset(DatasetSpec(name="phi", primary=(small_edge,), replay=(small_base,), replay_ratio=0.5)),
        tmp_path,
    )
    files = [p for p in folder.rglob("*") if p.is_file()]
    documents = [
        json.loads(line) for p in files if p.suffix == ".jsonl" for line in p.read_text().splitlines()
    ]
    documents += [json.loads(p.read_text()) for p in files if p.suffix == ".json"]
    texts = [s for document in documents for s in strings(document)] + [p.read_text() for p in files]
    assert leaked(raw, texts) == set()


def world_identifiers(world: dict[str, Any]) -> set[str]:
    """The identifiers of a recorded world: patients' names, birth dates and streets, member ids."""
    found: set[str] = set()
    for patient in world["patients"].values():
        found |= {
            patient["first_name"],
            patient["last_name"],
            patient["birth_date"],
            patient["address"]["line1"],
        }
    for coverage in world["coverages"].values():
        found |= {coverage["member_id"], coverage["subscriber_birth_date"]}
    for claim in world["claims"].values():
        found |= {claim["member_id"], claim["patient_birth_date"]}
    return {value for value in found if len(value) >= 4}


def test_no_raw_phi_value_of_archived_production_episodes_appears_in_any_dataset_file(
    small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    events = archived(list(small_base.tasks[:8]), ["paid"] * 8)
    episodes = episode_set(events, label="episodes:archive")
    worlds = [e.data.world_snapshot for e in events if isinstance(e.data, EpisodeStarted)]
    raw = raw_phi_values(list(episodes.rows), SPECS) | {v for w in worlds if w for v in world_identifiers(w)}
    raw_texts = [s for row in episodes.rows for s in strings(row.model_dump(mode="json"))]
    assert len(episodes.rows) == 8 and len(leaked(raw, raw_texts)) > 20  # the episodes do hold them

    folder = write_dataset(
        build_dataset(DatasetSpec(name="phi-episodes", primary=(), episodes=(episodes,))), tmp_path
    )
    files = [p for p in folder.rglob("*") if p.is_file()]
    documents = [
        json.loads(line) for p in files if p.suffix == ".jsonl" for line in p.read_text().splitlines()
    ]
    documents += [json.loads(p.read_text()) for p in files if p.suffix == ".json"]
    texts = [s for document in documents for s in strings(document)] + [p.read_text() for p in files]
    assert leaked(raw, texts) == set()


def test_a_member_id_keeps_one_surrogate_from_the_claim_to_the_eligibility_call(
    small_base: LoadedTaskSet,
) -> None:
    dataset = build_dataset(DatasetSpec(name="x", primary=(small_base,)))
    row = next(r for r in dataset.rows if r.meta.family == "carc:22")
    results: dict[str, Any] = {}
    for message in row.messages:
        if message["role"] == "tool":
            results.update(json.loads(message["content"]).get("result") or {})
        for call in message.get("tool_calls") or ():
            if call["function"]["name"] == "check_eligibility":
                asked = json.loads(call["function"]["arguments"])["member_id"]
    assert asked == results["claim"]["member_id"]
    assert asked.startswith("SYN")


def test_a_chart_keeps_its_coding_and_names_the_patient_by_the_surrogate(small_base: LoadedTaskSet) -> None:
    dataset = build_dataset(DatasetSpec(name="x", primary=(small_base,)))
    row = next(r for r in dataset.rows if r.meta.family == "carc:16")
    bodies = [json.loads(m["content"])["result"] for m in row.messages if m["role"] == "tool"]
    claim = next(b["claim"] for b in bodies if "claim" in b and "lines" in b["claim"])
    text = next(b["document"]["text"] for b in bodies if "document" in b)
    assert text.startswith(f"{claim['patient_first_name']} was seen")
    assert "Coding summary" in text and "(NPI " in text


def test_a_credit_dataset_keeps_its_rows_because_credit_marks_no_field_as_phi(tmp_path: Path) -> None:
    tasks = generate("credit-base", 0)[:4]
    loaded = LoadedTaskSet(
        label="credit-base (seed 0)", name="credit-base", version=None, seed=0,
        set_hash=manifest_hash([t.compute_hash() for t in tasks]), tasks=tuple(tasks),
    )  # fmt: skip
    specs = {spec.name: spec for spec in DOMAINS.get("credit").tool_specs()}
    rows = source_rows(loaded)
    names = {str(t.initial_world["packages"][t.work_item.item_id]["borrower"]["name"]) for t in tasks}
    texts = [s for row in rows for s in strings(row.model_dump(mode="json"))]
    assert names and all(any(n in text for text in texts) for n in names)  # company names reach rows
    assert raw_phi_values(rows, specs) == set()
    scrubber = PhiScrubber(specs).fit(rows)
    assert [scrubber.row(r) for r in rows] == rows
    assert scrubber.replaced == 0
