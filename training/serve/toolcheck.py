"""Which of a model's tool calls the request allows: a call names an offered tool and its
arguments are a JSON object that meets that tool's parameter schema. Pure.

The server never repairs or invents a call: a valid one goes out as an OpenAI `tool_calls` entry
exactly as the model wrote it, an invalid one is reported (`invalid_tool_calls`, with the reason)
and is not presented as a call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from engine import ProposedToolCall


@dataclass(frozen=True)
class InvalidToolCall:
    """A call the model wrote that cannot run, and why."""

    call: ProposedToolCall
    error: str

    def as_json(self) -> dict[str, Any]:
        """The report, shaped like a tool call with an `error`."""
        return {
            "id": self.call.call_id,
            "type": "function",
            "function": {"name": self.call.name, "arguments": self.call.arguments_raw},
            "error": self.error,
        }


@dataclass(frozen=True)
class CheckedCalls:
    """The calls split into those that may run and those that may not."""

    valid: tuple[ProposedToolCall, ...]
    invalid: tuple[InvalidToolCall, ...]


def offered_schemas(tools: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Tool name → JSON Schema of its parameters, for every `function` tool of the request."""
    out: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        function = tool.get("function")
        if tool.get("type", "function") == "function" and isinstance(function, Mapping):
            name = function.get("name")
            if isinstance(name, str):
                parameters = function.get("parameters")
                out[name] = parameters if isinstance(parameters, Mapping) else {"type": "object"}
    return out


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_nullable(option) for option in schema.get("anyOf", ()) or schema.get("oneOf", ()))


def lenient(schema: Any) -> Any:
    """`schema` with nullable properties no longer required, at every depth. OpenAI's strict mode
    lists every property as required and marks optional ones nullable; a model (and the Toolbox,
    which fills defaults) may leave them out, which is no reason to refuse the call."""
    if isinstance(schema, Mapping):
        out = {key: lenient(value) for key, value in schema.items()}
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and isinstance(schema.get("required"), list):
            out["required"] = [n for n in schema["required"] if not _nullable(properties.get(n))]
        return out
    if isinstance(schema, list):
        return [lenient(item) for item in schema]
    return schema


def check_call(call: ProposedToolCall, schemas: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Why `call` cannot run under `schemas`, or None when it can."""
    if not call.name:
        return "the model wrote a tool call without a tool name"
    if call.name not in schemas:
        return f"{call.name!r} is not one of the offered tools ({', '.join(sorted(schemas)) or 'none'})"
    try:
        arguments = json.loads(call.arguments_raw or "{}")
    except ValueError as exc:
        return f"arguments are not JSON: {exc}"
    if not isinstance(arguments, dict):
        return f"arguments are a JSON {type(arguments).__name__}, not an object"
    try:
        validator = jsonschema_rs.validator_for(lenient(schemas[call.name]))
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        return f"the tool's parameter schema is unusable: {exc}"
    errors = [error.message for error in validator.iter_errors(arguments)]
    return "; ".join(errors[:3]) if errors else None


def check_calls(calls: Sequence[ProposedToolCall], tools: Sequence[Mapping[str, Any]]) -> CheckedCalls:
    """Split `calls` by whether each may run against the request's `tools`."""
    schemas = offered_schemas(tools)
    valid: list[ProposedToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call in calls:
        error = check_call(call, schemas)
        if error is None:
            valid.append(call)
        else:
            invalid.append(InvalidToolCall(call, error))
    return CheckedCalls(tuple(valid), tuple(invalid))
