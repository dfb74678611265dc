"""Arguments guessed from a tool's JSON Schema and what an agent has seen: the work item's payload
and earlier tool results. What a policy that calls tools blindly would send.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from envs.contract import Turn
from schemas.tasks import WorkItem

_MISSING = object()


def find_value(doc: Any, key: str) -> Any:
    """The first value stored under `key` anywhere in `doc` (depth first), or a sentinel."""
    if isinstance(doc, Mapping):
        if key in doc and doc[key] is not None:
            return doc[key]
        children: Iterable[Any] = doc.values()
    elif isinstance(doc, list | tuple):
        children = doc
    else:
        return _MISSING
    for child in children:
        found = find_value(child, key)
        if found is not _MISSING:
            return found
    return _MISSING


class Guesser:
    """Fills a schema from the payload first, then from earlier results, then from types."""

    def __init__(self, work_item: WorkItem, turns: tuple[Turn, ...], root: Mapping[str, Any]) -> None:
        self._seen: list[Any] = [work_item.payload, *(t.result.result for t in turns if t.result.result)]
        self._defs: Mapping[str, Any] = root.get("$defs", {})
        self._payload = work_item.payload

    def known(self, name: str) -> Any:
        for doc in self._seen:
            found = find_value(doc, name)
            if found is not _MISSING:
                return found
        return _MISSING

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return self.resolve(self._defs.get(ref.rsplit("/", 1)[1], {}))
        return schema

    def value(self, name: str, schema: Mapping[str, Any]) -> Any:
        schema = self.resolve(schema)
        options = [self.resolve(o) for o in schema.get("anyOf", ())]
        if options:
            concrete = [o for o in options if o.get("type") != "null"]
            if self.known(name) is _MISSING and len(concrete) < len(options):
                return None
            return self.value(name, concrete[0]) if concrete else None
        kind = schema.get("type")
        if kind == "object":
            return self.fill(schema)
        if kind == "array":
            return self._array(name, schema)
        known = self.known(name)
        if kind == "string":
            return self._string(name, schema, known)
        if kind in ("number", "integer"):
            return self._number(name, schema, known, integer=kind == "integer")
        if kind == "boolean":
            return bool(known) if known is not _MISSING else False
        return None if known is _MISSING else known

    def fill(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        schema = self.resolve(schema)
        props: Mapping[str, Any] = schema.get("properties", {})
        return {name: self.value(name, prop) for name, prop in props.items()}

    def _array(self, name: str, schema: Mapping[str, Any]) -> list[Any]:
        known = self.known(name)
        if isinstance(known, list):
            return known
        singular = [name[:-1], "_".join(name.split("_")[-2:])[:-1]]
        item = next((v for v in map(self.known, singular) if v is not _MISSING), _MISSING)
        if item is not _MISSING and not isinstance(item, list | dict):
            return [item]
        if schema.get("minItems", 0) > 0:
            return [self.value(singular[0], schema.get("items", {}))]
        return []

    def _string(self, name: str, schema: Mapping[str, Any], known: Any) -> str:
        enum = schema.get("enum")
        if enum:
            return str(known) if known in enum else str(enum[0])
        if known is not _MISSING and not isinstance(known, list | dict):
            return str(known)
        if schema.get("format") == "date":
            return str(self._payload.get("worked_on", "2025-01-01"))
        text = f"{name.replace('_', ' ')} as found on the work item"
        return text[: schema.get("maxLength", len(text))]

    def _number(self, name: str, schema: Mapping[str, Any], known: Any, *, integer: bool) -> float | int:
        if isinstance(known, int | float) and not isinstance(known, bool):
            return int(known) if integer else float(known)
        amount = self._payload.get("billed_amount")
        if "amount" in name and isinstance(amount, int | float):
            return float(amount)
        low = schema.get("minimum", 1)
        return int(low) if integer else float(low)


def guess_arguments(tool: Mapping[str, Any], work_item: WorkItem, turns: tuple[Turn, ...]) -> dict[str, Any]:
    """Arguments for an OpenAI tool definition, guessed from what the agent has seen."""
    parameters = tool.get("function", {}).get("parameters", {})
    return Guesser(work_item, turns, parameters).fill(parameters)
