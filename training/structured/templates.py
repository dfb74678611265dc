"""Actions as templates with slots: what the policy's decision head chooses and its pointers fill.

A call is abstracted against the observation: an argument whose schema is an enum, a boolean or a
null stays a literal of the template; a value found among the observation's items becomes a copy
slot (the positions holding it are the pointer's targets); free text (a string field that allows
more than 64 characters) becomes a text template whose code-like words and numbers found among the
items are holes. The template vocabulary is small (tens to a few hundred per domain) and every
value the policy writes is copied from the conversation by construction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from training.structured.observe import Item, Observation

STR_KINDS = frozenset({"str", "date", "word"})
NUM_KINDS = frozenset({"num", "derived"})
TEXT_MIN_LENGTH = 64
"""A string field that allows more characters than this is free text."""
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_CODE_LIKE = re.compile(r"^(?=.*\d)[A-Za-z0-9.\-]+$|^[A-Z][A-Z0-9.\-]+$")
_MONEY = re.compile(r"^\d+\.\d{2}$")
_INT = re.compile(r"^\d+$")

Template = dict[str, Any]
"""`{"final": text}` or `{"tool": name, "args": node}`; see the module docstring."""


@dataclass(frozen=True)
class Slot:
    """One value the pointer heads fill: its kind (`str` or `num`) and the positions that hold it."""

    kind: str
    targets: tuple[int, ...]


@dataclass(frozen=True)
class Abstracted:
    """An action as its template, the template's canonical key, and its slots."""

    template: Template
    key: str
    slots: tuple[Slot, ...]
    uncopied: int = 0
    """Values that are neither enums nor found in the observation (kept as literals): an action the
    policy cannot produce by copying, so it is not trained on."""


def template_key(template: Template) -> str:
    """Canonical text of a template (its identity in the vocabulary)."""
    return json.dumps(template, separators=(",", ":"), ensure_ascii=False)


def abstract(message: Mapping[str, Any], obs: Observation, tools: Sequence[Mapping[str, Any]]) -> Abstracted:
    """The template and slots of one assistant message (a single tool call, or closing text)."""
    calls = message.get("tool_calls") or ()
    if not calls:
        template: Template = {"final": message.get("content") or ""}
        return Abstracted(template, template_key(template), ())
    if len(calls) != 1:
        raise ValueError("the structured policy makes one tool call per turn")
    function = calls[0]["function"]
    arguments = (
        json.loads(function["arguments"]) if isinstance(function["arguments"], str) else function["arguments"]
    )
    schema = _parameters(tools, function["name"])
    walker = _Walker(obs.items, schema)
    template = {"tool": function["name"], "args": walker.node(arguments, schema)}
    return Abstracted(template, template_key(template), tuple(walker.slots), walker.uncopied)


def _parameters(tools: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any]:
    for tool in tools:
        if tool["function"]["name"] == name:
            return dict(tool["function"].get("parameters") or {})
    return {}


class _Walker:
    def __init__(self, items: Sequence[Item], root: Mapping[str, Any]) -> None:
        self.items = items
        self.defs = root.get("$defs", {})
        self.slots: list[Slot] = []
        self.uncopied = 0

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        if "$ref" in schema:
            schema = self.defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        options = [s for s in schema.get("anyOf", ()) if s.get("type") != "null"]
        return self.resolve(options[0]) if options else schema

    def node(self, value: Any, schema: Mapping[str, Any]) -> Any:
        schema = self.resolve(schema)
        if isinstance(value, Mapping):
            props = schema.get("properties", {})
            return {"$obj": [[k, self.node(v, props.get(k, {}))] for k, v in value.items()]}
        if isinstance(value, list):
            return {"$list": [self.node(v, schema.get("items", {})) for v in value]}
        if value is None or isinstance(value, bool) or "enum" in schema:
            return {"$lit": value}
        if isinstance(value, int | float):
            return self.copy(float(value), "num", as_int=isinstance(value, int))
        text = str(value)
        if int(schema.get("maxLength", 0)) > TEXT_MIN_LENGTH:
            return self.text(text)
        return self.copy(text, "str")

    def copy(self, value: str | float, kind: str, *, as_int: bool = False) -> dict[str, Any]:
        targets = _targets(self.items, value, kind)
        if not targets:
            self.uncopied += 1
            return {"$lit": int(value) if as_int and isinstance(value, float) else value}
        self.slots.append(Slot(kind, targets))
        return {"$copy": len(self.slots) - 1, "as": "int" if as_int else kind}

    def text(self, text: str) -> dict[str, Any]:
        parts: list[Any] = []
        at = 0
        for match in _TOKEN.finditer(text):
            for start, word in _pieces(match.start(), match.group(0), self.items):
                hole = self.hole(word) if _CODE_LIKE.match(word) else None
                if hole is None:
                    continue
                parts.append(text[at:start])
                parts.append(hole)
                at = start + len(word)
        parts.append(text[at:])
        return {"$text": [p for p in parts if p != ""]}

    def hole(self, word: str) -> dict[str, Any] | None:
        targets = _targets(self.items, word, "str")
        fmt = "s"
        if not targets and (_MONEY.match(word) or _INT.match(word)):
            targets = _targets(self.items, float(word), "num")
            fmt = ".2f" if _MONEY.match(word) else "d"
        if not targets:
            return None
        self.slots.append(Slot("str" if fmt == "s" else "num", targets))
        return {"$hole": len(self.slots) - 1, "fmt": fmt}


def _pieces(start: int, word: str, items: Sequence[Item]) -> list[tuple[int, str]]:
    """A word as one piece when an item holds it whole (`CO-29`, `2025-01-06`), else its hyphen-
    separated parts (`120-day` → `120`, `day`)."""
    if "-" not in word or _targets(items, word, "str"):
        return [(start, word)]
    pieces, at = [], start
    for part in word.split("-"):
        if part:
            pieces.append((at, part))
        at += len(part) + 1
    return pieces


def _targets(items: Sequence[Item], value: str | float, kind: str) -> tuple[int, ...]:
    if kind == "num":
        return tuple(
            i
            for i, item in enumerate(items)
            if item.kind in NUM_KINDS
            and isinstance(item.value, float)
            and abs(item.value - float(value)) < 0.005
        )
    return tuple(i for i, item in enumerate(items) if item.kind in STR_KINDS and item.value == value)


def slot_kinds(template: Template) -> list[str]:
    """The kind of each slot of a template, in slot order."""
    found: dict[int, str] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if "$copy" in node:
                found[node["$copy"]] = "num" if node["as"] in ("num", "int") else "str"
            elif "$hole" in node:
                found[node["$hole"]] = "str" if node["fmt"] == "s" else "num"
            for inner in node.values():
                visit(inner)
        elif isinstance(node, list):
            for inner in node:
                visit(inner)

    visit(template)
    return [found[i] for i in sorted(found)]


def realize(template: Template, values: Sequence[str | float | bool | None]) -> tuple[str | None, Any]:
    """(tool name, arguments) of a template filled with one value per slot; (None, text) for a final message."""
    if "final" in template:
        return None, template["final"]

    def build(node: Any) -> Any:
        if "$lit" in node:
            return node["$lit"]
        if "$copy" in node:
            value = values[node["$copy"]]
            if node["as"] == "int" and isinstance(value, float):
                return round(value)
            if node["as"] == "num" and isinstance(value, float):
                return round(value, 2)
            return value
        if "$obj" in node:
            return {k: build(v) for k, v in node["$obj"]}
        if "$list" in node:
            return [build(v) for v in node["$list"]]
        return "".join(
            p if isinstance(p, str) else _format(values[p["$hole"]], p["fmt"]) for p in node["$text"]
        )

    return str(template["tool"]), build(template["args"])


def _format(value: str | float | bool | None, fmt: str) -> str:
    if fmt == ".2f" and isinstance(value, float):
        return f"{value:.2f}"
    if fmt == "d" and isinstance(value, float):
        return str(round(value))
    return str(value)
