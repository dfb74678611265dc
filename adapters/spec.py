"""`ToolSpec`: one tool definition that serves training (sim) and production (live) alike."""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from schemas.tasks import content_hash
from schemas.tools import SideEffect

A = TypeVar("A", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

# Keywords OpenAI's strict structured-output mode rejects; they carry no meaning for the model.
_STRICT_UNSUPPORTED = ("default", "title", "examples", "x-phi")


@dataclass(frozen=True)
class ToolSpec(Generic[A, R]):
    """A tool: name, LLM-facing description, argument and result models, side-effect class."""

    name: str
    description: str
    args_model: type[A]
    result_model: type[R]
    side_effect: SideEffect

    def parameters_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, as pydantic writes it."""
        return self.args_model.model_json_schema()

    def openai_tool(self) -> dict[str, Any]:
        """The tool in OpenAI `tools` format with a strict JSON Schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(_strict_parameters(self.args_model)),
                "strict": True,
            },
        }

    def mcp_tool(self) -> dict[str, Any]:
        """The tool as an MCP tool definition (`tools/list` entry)."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.parameters_schema(),
            "outputSchema": self.result_model.model_json_schema(),
            "annotations": {
                "readOnlyHint": self.side_effect is SideEffect.READ,
                "destructiveHint": self.side_effect is SideEffect.IRREVERSIBLE,
                "idempotentHint": self.side_effect is SideEffect.READ,
                "openWorldHint": True,
            },
        }


@functools.cache
def _strict_parameters(args_model: type[BaseModel]) -> dict[str, Any]:
    # Rendering a schema costs milliseconds and every environment reset offers every tool; the
    # result depends only on the model class, so it is built once (callers get a copy).
    return strict_schema(args_model.model_json_schema())


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a pydantic JSON Schema into OpenAI strict mode.

    Strict mode wants every object closed (`additionalProperties: false`) and every property
    required; an optional field becomes required-but-nullable, which keeps its meaning.
    """
    out = copy.deepcopy(schema)
    _strictify(out)
    return out


def _strictify(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _strictify(item)
        return
    if not isinstance(node, dict):
        return
    for key in _STRICT_UNSUPPORTED:
        node.pop(key, None)
    if node.get("type") == "object" and "properties" in node:
        props: dict[str, Any] = node["properties"]
        required = set(node.get("required", ()))
        for name, prop in props.items():
            if name not in required and not _is_nullable(prop):
                props[name] = {"anyOf": [prop, {"type": "null"}]}
        node["required"] = list(props)
        node["additionalProperties"] = False
    for value in node.values():
        _strictify(value)


def _is_nullable(prop: dict[str, Any]) -> bool:
    return any(option.get("type") == "null" for option in prop.get("anyOf", ()))


def tools_hash(specs: list[ToolSpec[Any, Any]]) -> str:
    """Content hash over the tool definitions the agent is offered."""
    return content_hash([spec.openai_tool() for spec in specs])
