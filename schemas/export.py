"""JSON Schema export of every published contract.

The committed files under `schemas/jsonschema/` are the published contracts; a test compares a fresh
export with them, so changing a published schema is always a deliberate act (and, per design.md §3,
a new version with an upcaster rather than an edit). The files of retired types (read through an
upcaster) stay as they were published: the export neither rewrites nor removes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schemas.envelope import Event
from schemas.registry import DEFAULT_REGISTRY, EventRegistry
from schemas.tasks import Task, TaskSetManifest

EXPORT_DIR = Path(__file__).parent / "jsonschema"


def render_schemas(registry: EventRegistry = DEFAULT_REGISTRY) -> dict[str, str]:
    """File name → JSON text, for every event type's data, the envelope and the task models."""
    docs: dict[str, dict[str, Any]] = {}
    for event_type in registry.types():
        schema = registry.model_for(event_type).model_json_schema()
        schema["$id"] = f"urn:loopline:schema:{event_type}"
        schema["title"] = event_type
        docs[f"{event_type}.json"] = schema
    envelope = Event.model_json_schema()
    envelope["$id"] = "urn:loopline:schema:envelope"
    docs["envelope.json"] = envelope
    docs["task.json"] = Task.model_json_schema()
    docs["task_set_manifest.json"] = TaskSetManifest.model_json_schema()
    return {name: json.dumps(doc, indent=2, sort_keys=True) + "\n" for name, doc in sorted(docs.items())}


def _retired(registry: EventRegistry = DEFAULT_REGISTRY) -> set[str]:
    return {f"{event_type}.json" for event_type in registry.retired_types()}


def write_schemas(target: Path = EXPORT_DIR) -> list[Path]:
    """Write every schema to `target`, removing files of types that no longer exist."""
    target.mkdir(parents=True, exist_ok=True)
    rendered = render_schemas()
    for stale in set(p.name for p in target.glob("*.json")) - rendered.keys() - _retired():
        (target / stale).unlink()
    paths = []
    for name, text in rendered.items():
        path = target / name
        path.write_text(text)
        paths.append(path)
    return paths


def diff_schemas(target: Path = EXPORT_DIR) -> list[str]:
    """Names of files that differ between a fresh export and `target` (missing, extra or changed)."""
    rendered = render_schemas()
    files = target.glob("*.json") if target.exists() else ()
    on_disk = {p.name: p.read_text() for p in files if p.name not in _retired()}
    names = rendered.keys() | on_disk.keys()
    return sorted(n for n in names if rendered.get(n) != on_disk.get(n))
