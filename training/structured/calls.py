"""A call as the compositional decoder builds it: the tool, then one decision per schema node.

The decoder walks the tool's JSON schema in property order. At every node it picks a *mode* among
those the node's type allows (`modes_for`): null for a nullable node; an object's properties, each
walked in turn; a list's length, then each element; true or false; an enum member (`ENUM`, then
which member); a copied value (`COPY`, one pointer); a number derived from two copied ones (`ADD`,
`SUB`, `MUL`, `DIV`, two pointers); free text (`TEXT`: a text frame of the field, whose holes are
pointers, as `templates` abstracts text). A closing message is the tool `FINAL` with one text node.

`targets` turns a gold call into these decisions (the training targets); `build` turns decisions
back into arguments. Nothing here names a tool or a domain: the schema says what each node can be.
A call whose value the decoder cannot produce (a number needing three operands, a string shown
nowhere) has no targets, and its row is left out of training and counted, as `examples` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from training.structured.compose import _Node
from training.structured.observe import Item, Observation
from training.structured.templates import NUM_KINDS, STR_KINDS, TEXT_MIN_LENGTH, Slot, _Walker, realize

FINAL = "<final>"
MAX_LIST = 8
MODES = (
    "null",
    "object",
    "true",
    "false",
    "enum",
    "copy",
    "add",
    "sub",
    "mul",
    "div",
    "text",
    *(f"len{k}" for k in range(MAX_LIST + 1)),
)
MODE = {name: i for i, name in enumerate(MODES)}
OPS: dict[str, Callable[[float, float], float]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


@dataclass(frozen=True)
class Node:
    """One decision of a call: where it sits and what was chosen there."""

    path: str
    """`tool.field.sub`, a list's elements as `list[]` (`post_write_off.note`, `x.lines[].units`)."""
    position: int
    """Position in the innermost list around it (0 outside lists)."""
    mode: int
    allowed: tuple[int, ...]
    """Modes the schema allows here."""
    choice: str = ""
    """The enum member (`ENUM`) or the text frame's key (`TEXT`)."""
    slots: tuple[Slot, ...] = ()
    """Pointers: one for `COPY`, two operands for a derived number, one per hole for `TEXT`."""


@dataclass(frozen=True)
class CallTargets:
    """A call as decisions: its tool and its nodes in walk order."""

    tool: str
    nodes: tuple[Node, ...]


def schema_of(tools: Sequence[Mapping[str, Any]], name: str) -> _Node:
    """The resolved parameter schema of tool `name` (empty when it is not offered)."""
    found = next((t for t in tools if t["function"]["name"] == name), None)
    parameters = dict((found or {}).get("function", {}).get("parameters") or {})
    return _Node(parameters, parameters.get("$defs", {}))


def nullable(raw: Mapping[str, Any]) -> bool:
    return any(s.get("type") == "null" for s in raw.get("anyOf", ())) or raw.get("default", 0) is None


def modes_for(node: _Node, raw: Mapping[str, Any]) -> tuple[int, ...]:
    """The modes a schema node allows."""
    schema = node.schema
    kind = schema.get("type")
    out = [MODE["null"]] if nullable(raw) else []
    if "enum" in schema:
        out.append(MODE["enum"])
    elif kind == "object" or "properties" in schema:
        out.append(MODE["object"])
    elif kind == "array":
        out += [MODE[f"len{k}"] for k in range(MAX_LIST + 1)]
    elif kind == "boolean":
        out += [MODE["true"], MODE["false"]]
    elif kind in ("integer", "number"):
        out += [MODE[m] for m in ("copy", "add", "sub", "mul", "div")]
    elif kind == "string" and int(schema.get("maxLength", 0)) > TEXT_MIN_LENGTH:
        out.append(MODE["text"])
    elif kind == "string":
        out.append(MODE["copy"])
    return tuple(out)


def text_frame(text: str, items: Sequence[Item]) -> tuple[str, tuple[Slot, ...]]:
    """The frame of a free text (its words with holes for what the items hold) and its holes."""
    walker = _Walker(items, {})
    frame = walker.text(text)
    return json.dumps(frame["$text"], separators=(",", ":"), ensure_ascii=False), tuple(walker.slots)


def targets(
    message: Mapping[str, Any], obs: Observation, tools: Sequence[Mapping[str, Any]]
) -> CallTargets | None:
    """The decisions that build this assistant message, or None when the decoder cannot build it."""
    calls = message.get("tool_calls") or ()
    if not calls:
        frame, slots = text_frame(str(message.get("content") or ""), obs.items)
        return CallTargets(FINAL, (Node(FINAL, 0, MODE["text"], (MODE["text"],), frame, slots),))
    if len(calls) != 1:
        return None
    function = calls[0]["function"]
    arguments = function["arguments"]
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    walk = _Targets(obs.items)
    schema = schema_of(tools, function["name"])
    walk.node(value, schema, {}, function["name"], 0)
    return None if walk.failed else CallTargets(function["name"], tuple(walk.nodes))


class _Targets:
    def __init__(self, items: Sequence[Item]) -> None:
        self.items = items
        self.nodes: list[Node] = []
        self.failed = False

    def add(self, path: str, position: int, mode: str, allowed: tuple[int, ...], **kw: Any) -> None:
        if MODE[mode] not in allowed:
            self.failed = True
        self.nodes.append(Node(path, position, MODE[mode], allowed, **kw))

    def node(self, value: Any, node: _Node, raw: Mapping[str, Any], path: str, position: int) -> None:
        allowed = modes_for(node, raw)
        if value is None:
            self.add(path, position, "null", allowed)
        elif isinstance(value, Mapping):
            self.add(path, position, "object", allowed)
            props = node.schema.get("properties", {})
            if set(value) - set(props):
                self.failed = True
            for key, inner_raw in props.items():
                self.node(value.get(key), _Node(inner_raw, node.defs), inner_raw, f"{path}.{key}", position)
        elif isinstance(value, list):
            if len(value) > MAX_LIST:
                self.failed = True
                return
            self.add(path, position, f"len{len(value)}", allowed)
            for i, inner in enumerate(value):
                self.node(inner, node.items(), node.schema.get("items", {}), f"{path}[]", i)
        elif isinstance(value, bool):
            self.add(path, position, "true" if value else "false", allowed)
        elif "enum" in node.schema:
            self.add(path, position, "enum", allowed, choice=str(value))
        elif isinstance(value, int | float):
            self.number(float(value), path, position, allowed)
        elif MODE["text"] in allowed:
            frame, slots = text_frame(str(value), self.items)
            self.add(path, position, "text", allowed, choice=frame, slots=slots)
        else:
            found = _holding(self.items, str(value), STR_KINDS)
            self.failed |= not found
            self.add(path, position, "copy", allowed, slots=(Slot("str", found),))

    def number(self, value: float, path: str, position: int, allowed: tuple[int, ...]) -> None:
        found = _holding(self.items, value, NUM_KINDS)
        if found:
            self.add(path, position, "copy", allowed, slots=(Slot("num", found),))
            return
        numbers = sorted({i.value for i in self.items if i.kind in NUM_KINDS and isinstance(i.value, float)})
        for op, fn in OPS.items():
            for a in numbers:
                for b in numbers:
                    if (op == "div" and b == 0.0) or abs(fn(a, b) - value) > 0.005:
                        continue
                    operands = (
                        Slot("num", _holding(self.items, a, NUM_KINDS)),
                        Slot("num", _holding(self.items, b, NUM_KINDS)),
                    )
                    self.add(path, position, op, allowed, slots=operands)
                    return
        self.failed = True


def _holding(items: Sequence[Item], value: str | float, kinds: frozenset[str]) -> tuple[int, ...]:
    if isinstance(value, float):
        return tuple(
            i
            for i, item in enumerate(items)
            if item.kind in kinds and isinstance(item.value, float) and abs(item.value - value) < 0.005
        )
    return tuple(i for i, item in enumerate(items) if item.kind in kinds and item.value == value)


@dataclass(frozen=True)
class Choice:
    """What the decoder chose at one node: the mode, the enum member or frame, the items picked."""

    mode: int
    choice: str = ""
    picks: tuple[int, ...] = ()


Decide = Callable[[str, int, tuple[int, ...], Sequence[Slot] | None], Choice]
"""(path, position, allowed modes, the frame's holes when a text frame was chosen) → the choice."""


def build(tool: str, tools: Sequence[Mapping[str, Any]], items: Sequence[Item], decide: Decide) -> Any:
    """The arguments of `tool` (or the closing text of `FINAL`) as `decide` builds them, node by node
    in the order `targets` gives its nodes."""
    if tool == FINAL:
        return _realize(decide(FINAL, 0, (MODE["text"],), None), None, items)
    return _Build(items, decide).node(schema_of(tools, tool), {}, tool, 0)


class _Build:
    def __init__(self, items: Sequence[Item], decide: Decide) -> None:
        self.items, self.decide = items, decide

    def node(self, node: _Node, raw: Mapping[str, Any], path: str, position: int) -> Any:
        choice = self.decide(path, position, modes_for(node, raw), None)
        name = MODES[choice.mode]
        if name == "object":
            return {
                key: self.node(_Node(inner, node.defs), inner, f"{path}.{key}", position)
                for key, inner in node.schema.get("properties", {}).items()
            }
        if name.startswith("len"):
            inner = node.schema.get("items", {})
            return [self.node(node.items(), inner, f"{path}[]", i) for i in range(int(name[3:]))]
        return _realize(choice, node, self.items)


def _realize(choice: Choice, node: _Node | None, items: Sequence[Item]) -> Any:
    name = MODES[choice.mode]
    integer = node is not None and node.schema.get("type") == "integer"
    values = [items[i].value for i in choice.picks]
    if name in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[name]
    if name == "enum":
        return choice.choice
    if name == "text":
        _, text = realize({"tool": "", "args": {"$text": json.loads(choice.choice)}}, values)
        return text
    if name == "copy" and not isinstance(values[0], float):
        return values[0]
    numbers = [float(v) if isinstance(v, float) else 0.0 for v in values]
    number = (
        numbers[0]
        if name == "copy"
        else OPS[name](numbers[0], numbers[1])
        if numbers[1] or name != "div"
        else 0.0
    )
    return round(number) if integer else round(number, 2)
