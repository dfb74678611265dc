"""The committed JSON Schemas are exactly what the code exports: contract changes are deliberate."""

from __future__ import annotations

import json
from pathlib import Path

from schemas import DEFAULT_REGISTRY
from schemas.export import EXPORT_DIR, diff_schemas, write_schemas


def test_committed_schemas_match_the_code() -> None:
    changed = diff_schemas()
    assert changed == [], f"run `loopline schemas export` deliberately; differing: {changed}"


def test_every_event_type_has_a_schema_with_field_descriptions() -> None:
    for event_type in DEFAULT_REGISTRY.types():
        doc = json.loads((EXPORT_DIR / f"{event_type}.json").read_text())
        assert doc["$id"].endswith(event_type)
        for name, prop in doc.get("properties", {}).items():
            assert prop.get("description"), f"{event_type}.{name} has no description"


def test_export_detects_an_edited_contract(tmp_path: Path) -> None:
    write_schemas(tmp_path)
    assert diff_schemas(tmp_path) == []
    target = tmp_path / "loopline.escalated.v1.json"
    target.write_text(target.read_text().replace("Why.", "Why?"))
    (tmp_path / "loopline.gone.v1.json").write_text("{}")
    assert diff_schemas(tmp_path) == ["loopline.escalated.v1.json", "loopline.gone.v1.json"]


def test_a_retired_event_type_keeps_its_published_schema_and_upcasts() -> None:
    published = EXPORT_DIR / "loopline.verifier.scored.v1.json"
    assert published.exists() and "loopline.verifier.scored.v1" not in DEFAULT_REGISTRY
    old = {"task_id": "t1", "verdict": {"verifier": "rcm.v1", "score": 1.0, "passed": True, "checks": []}}
    event_type, data = DEFAULT_REGISTRY.upcast("loopline.verifier.scored.v1", old)
    assert event_type == "loopline.verifier.scored.v2"
    assert (
        DEFAULT_REGISTRY.model_for(event_type).model_validate(data).model_dump(mode="json")["task_id"] == "t1"
    )


def test_episode_started_v1_keeps_its_published_schema_and_reads_as_v2_with_the_external_route() -> None:
    published = json.loads((EXPORT_DIR / "loopline.episode.started.v1.json").read_text())
    route = published["$defs"]["PolicyRef"]["properties"]["route"]
    assert route["enum"] == ["champion", "canary", "scripted", "human"]  # as published, never edited
    assert "loopline.episode.started.v1" not in DEFAULT_REGISTRY
    current = json.loads((EXPORT_DIR / "loopline.episode.started.v2.json").read_text())
    assert "external" in current["$defs"]["PolicyRef"]["properties"]["route"]["enum"]
    old = {
        "work_item": {
            "domain": "rcm",
            "kind": "denial",
            "item_id": "CLM-1",
            "instructions": "Work the denial.",
        },
        "policy": {"model": "loopline-rcm", "adapter_id": "cycle-1", "route": "canary"},
        "tools": ["get_claim"],
        "tools_hash": "0" * 64,
        "system_prompt_hash": "0" * 64,
        "max_steps": 8,
        "max_seconds": 600,
    }
    event_type, data = DEFAULT_REGISTRY.upcast("loopline.episode.started.v1", old)
    assert event_type == "loopline.episode.started.v2"
    started = DEFAULT_REGISTRY.model_for(event_type).model_validate(data)
    assert started.model_dump(mode="json")["policy"] == old["policy"]
