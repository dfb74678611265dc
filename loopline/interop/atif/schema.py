"""ATIF v1.7 validation: the published JSON Schema (vendored beside this module, with its source)
and the rules Harbor's models check that a JSON Schema cannot state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from loopline.interop.atif import ATIF_VERSION

SCHEMA_FILE = Path(__file__).with_name("atif-v1.7.schema.json")
_AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


@cache
def _validator() -> Any:
    return jsonschema_rs.validator_for(json.loads(SCHEMA_FILE.read_text()))


def _step_problems(index: int, step: Mapping[str, Any]) -> list[str]:
    where, problems = f"steps[{index}]", []
    if step.get("step_id") != index + 1:
        problems.append(
            f"{where}.step_id: expected {index + 1} (sequential from 1), got {step.get('step_id')}"
        )
    if step.get("source") != "agent":
        problems += [f"{where}.{f} is only for agent steps" for f in _AGENT_ONLY if step.get(f) is not None]
    elif step.get("llm_call_count") == 0:
        problems += [
            f"{where}.{f} must be absent when llm_call_count is 0"
            for f in ("metrics", "reasoning_content")
            if step.get(f) is not None
        ]
    stamp = step.get("timestamp")
    if isinstance(stamp, str):
        try:
            datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            problems.append(f"{where}.timestamp is not ISO 8601: {stamp!r}")
    calls = {c.get("tool_call_id") for c in step.get("tool_calls") or ()}
    for result in (step.get("observation") or {}).get("results") or ():
        source = result.get("source_call_id")
        if source is not None and source not in calls:
            problems.append(f"{where}: observation answers {source!r}, which is not a tool call of the step")
    return problems


def atif_problems(doc: Any, *, version: str = ATIF_VERSION) -> list[str]:
    """Why `doc` is not a valid ATIF trajectory of `version` ([] when it is one)."""
    problems = [f"{e.instance_path or '(root)'}: {e.message}" for e in _validator().iter_errors(doc)]
    if problems:
        return problems[:10]
    if doc.get("schema_version") != version:
        problems.append(f"schema_version is {doc.get('schema_version')!r}, not {version!r}")
    for index, step in enumerate(doc["steps"]):
        problems += _step_problems(index, step)
    ids = [sub.get("trajectory_id") for sub in doc.get("subagent_trajectories") or ()]
    if None in ids or len(set(ids)) != len(ids):
        problems.append("embedded subagent trajectories need unique trajectory_ids")
    for sub in doc.get("subagent_trajectories") or ():
        problems += [f"subagent {sub.get('trajectory_id')}: {p}" for p in atif_problems(sub, version=version)]
    return problems
