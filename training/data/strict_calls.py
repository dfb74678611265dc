"""Tool calls as a strict-mode model writes them: every property of the tool's strict schema present.

OpenAI's strict mode (`ToolSpec.openai_tool`) lists every property as required and writes an
optional one as nullable, so a model served or fine-tuned with those schemas always writes every
key. A row that teaches calls leaving keys out teaches calls the schema it ships with forbids, so
rows carry each call with the keys it left out filled in: the field's default where it has one
(`conditions: []`), null where the default is none. The keys the call did write keep their values
and order; the Toolbox reads the filled call exactly as the short one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema_rs
from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from adapters.spec import ToolSpec


def strict_arguments(spec: ToolSpec[Any, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with every key the strict schema requires. Arguments the tool's model refuses
    (a recorded call the Toolbox answered with a validation error, a PHI token where a date was)
    get their missing top-level keys only, from the fields' defaults."""
    try:
        full = spec.args_model.model_validate(dict(arguments)).model_dump(mode="json", by_alias=True)
    except ValidationError:
        full = {
            field.alias or name: to_jsonable_python(field.get_default(call_default_factory=True))
            for name, field in spec.args_model.model_fields.items()
            if not field.is_required()
        }
    filled = _fill(dict(arguments), full)
    return filled if isinstance(filled, dict) else dict(arguments)


def _fill(given: Any, full: Any) -> Any:
    if isinstance(given, dict) and isinstance(full, dict):
        out = {key: _fill(value, full.get(key)) for key, value in given.items()}
        for key, value in full.items():
            out.setdefault(key, value)
        return out
    if isinstance(given, list) and isinstance(full, list) and len(given) == len(full):
        return [_fill(g, f) for g, f in zip(given, full, strict=True)]
    return given


def call_problems(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every assistant tool call in `messages` that its tool's schema (as offered in `tools`, strict
    where the tool says so) refuses, named by message index and tool."""
    validators: dict[str, Any] = {}
    for tool in tools:
        function = tool.get("function") or {}
        validators[function.get("name", "")] = jsonschema_rs.validator_for(
            function.get("parameters") or {"type": "object"}
        )
    problems: list[str] = []
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            name, text = function.get("name"), function.get("arguments")
            validator = validators.get(name or "")
            if validator is None:
                problems.append(f"messages[{index}]: {name!r} is not one of the row's tools")
                continue
            try:
                arguments = json.loads(text) if isinstance(text, str) else text
            except ValueError as exc:
                problems.append(f"messages[{index}] {name}: arguments are not JSON ({exc})")
                continue
            errors = [error.message for error in validator.iter_errors(arguments)]
            if errors:
                problems.append(f"messages[{index}] {name}: {'; '.join(errors[:3])}")
    return problems
