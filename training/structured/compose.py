"""The compositional action space: a call as the tool, then each argument by its schema.

Where a template names a whole call, this space builds one: the tool (one of those offered), then,
walking the tool's JSON schema, each argument by its kind:

- `choice`: an enum member, a boolean or a null (an optional field left out), chosen from the
  schema's own list;
- `copy`: a value pointed at in the conversation: an item's value, a word of an item's text, a part
  of a field name (`telehealth_requires_modifier_95` supplies `95`), or a word of the tools'
  descriptions (the conversation's tool list: `02/10 telehealth` supplies `10`);
- `derived`: a number computed from copied ones, an arithmetic expression of at most
  `MAX_OPERANDS` operands (`+ - * /`; the constant 100 for percentages), rounded as written;
- `text`: free text (a string field allowing more than 64 characters) composed part by part: each
  word a copy, a number copied or derived (in the formats a writer uses: `1234.50`, `1,234`,
  `3.4`), or a word of the lexicon (the words of the training rows' free text: what a policy
  trained on them can write); punctuation and spaces are parts of their own;
- objects and lists: each property and each element by its schema (a list's length is a choice).

`express` checks one gold call against the space and names the first argument it cannot build;
`expressibility` in `bench/expressibility.py` counts them per family. A derived number found by the
bounded search is a witness that the space holds the value, not proof that it holds the intended
computation: `chance_control` measures how often a nearby wrong value is found as well.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from training.structured.observe import Item, Observation
from training.structured.templates import TEXT_MIN_LENGTH

MAX_OPERANDS = 3
CONSTANTS = (100.0,)
"""Numbers the derivation may use without copying them (percentages)."""
TOLERANCE = 0.005
"""A derived number matches a written one that it rounds to (two decimals)."""
_TEXT_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,'\-]*[A-Za-z0-9]|\S")
_SUBPART = re.compile(r"\d[\d,]*(?:\.\d+)?|[A-Za-z']+|.")
_NUMBER = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_KEY_PART = re.compile(r"[A-Za-z0-9]+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-']*[A-Za-z0-9]|[A-Za-z0-9]")

KINDS = ("choice", "copy", "derived", "text", "spelled")


@dataclass(frozen=True)
class Expressed:
    """How the space builds a call: the kind of every leaf argument, and the parts it must spell."""

    ok: bool
    """False only for a call that is not well formed (a tool not offered, a field the schema does
    not have, a value outside its enum): every well-formed call can be built."""
    kinds: tuple[str, ...]
    """The kind of every leaf argument, in order (`choice`, `copy`, `derived`, `text`, `spelled`)."""
    spelled: tuple[str, ...] = ()
    """`path: part` of every value or word of text no copy, derivation or lexicon word gives: the
    space writes it character by character (its fallback, as a tokenizer falls back to bytes)."""
    error: str = ""
    """Why a call is not well formed."""

    @property
    def grounded(self) -> bool:
        """Built without spelling anything: every part chosen, copied, derived or a lexicon word."""
        return self.ok and not self.spelled


@dataclass(frozen=True)
class Sources:
    """What one observation offers to copy: strings (values, words, field-name parts, the tools'
    words) and numbers."""

    strings: frozenset[str]
    numbers: NDArray[np.float64]
    """Sorted unique numbers of the conversation, and `CONSTANTS`."""

    @classmethod
    def of(cls, obs: Observation, tools: Sequence[Mapping[str, Any]]) -> Sources:
        strings = set(tool_words(tools))
        numbers = set(CONSTANTS)
        for item in obs.items:
            strings |= _item_strings(item)
            if isinstance(item.value, float):
                numbers.add(item.value)
        return cls(frozenset(strings), np.array(sorted(numbers), dtype=np.float64))


def _item_strings(item: Item) -> set[str]:
    found = set(_KEY_PART.findall(item.path))
    if isinstance(item.value, str):
        found.add(item.value)
        found |= set(_WORD.findall(item.value))
    return found


def tool_words(tools: Sequence[Mapping[str, Any]]) -> set[str]:
    """Every word of the tools' names, descriptions and schemas (what the conversation's tool list says)."""
    text = json.dumps(list(tools), ensure_ascii=False)
    return set(_WORD.findall(text)) | set(_KEY_PART.findall(text))


def lexicon(texts: Iterable[str]) -> frozenset[str]:
    """The words of free texts (a policy's writing vocabulary, learned from its training rows)."""
    words: set[str] = set()
    for text in texts:
        for part in _TEXT_PART.findall(text):
            words |= {p for p in (part, *_SUBPART.findall(part)) if not _NUMBER.match(p)}
    return frozenset(words)


def free_texts(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """The free-text arguments and closing messages an assistant wrote in a conversation."""
    for message in messages:
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or ()
        if not calls:
            yield str(message.get("content") or "")
        for call in calls:
            function = call["function"]
            yield from _texts(_arguments(function), _Schema(tools, function["name"]).root)


def _texts(value: Any, schema: _Node | None) -> Iterator[str]:
    if schema is None:
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _texts(inner, schema.field(key))
    elif isinstance(value, list):
        for inner in value:
            yield from _texts(inner, schema.items())
    elif isinstance(value, str) and schema.is_text():
        yield value


def _arguments(function: Mapping[str, Any]) -> Any:
    arguments = function.get("arguments")
    return json.loads(arguments) if isinstance(arguments, str) else arguments


class _Node:
    """One schema node, `$ref`s and nullable `anyOf`s resolved."""

    def __init__(self, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> None:
        self.defs = defs
        while True:
            if "$ref" in schema:
                schema = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
                continue
            options = [s for s in schema.get("anyOf", ()) if s.get("type") != "null"]
            if options:
                schema = options[0]
                continue
            break
        self.schema = schema

    def field(self, key: str) -> _Node | None:
        props = self.schema.get("properties")
        if props is None or key not in props:
            return None
        return _Node(props[key], self.defs)

    def items(self) -> _Node:
        return _Node(self.schema.get("items", {}), self.defs)

    def is_text(self) -> bool:
        return int(self.schema.get("maxLength", 0)) > TEXT_MIN_LENGTH


class _Schema:
    def __init__(self, tools: Sequence[Mapping[str, Any]], name: str) -> None:
        found = next((t for t in tools if t["function"]["name"] == name), None)
        self.offered = found is not None
        parameters = dict((found or {}).get("function", {}).get("parameters") or {})
        self.root = _Node(parameters, parameters.get("$defs", {}))


def express(
    message: Mapping[str, Any],
    obs: Observation,
    tools: Sequence[Mapping[str, Any]],
    words: frozenset[str],
    sources: Sources | None = None,
) -> Expressed:
    """How the compositional space builds this assistant message (a call, or closing text)."""
    sources = sources or Sources.of(obs, tools)
    calls = message.get("tool_calls") or ()
    walk = _Walk(sources, words)
    if not calls:
        walk.text(str(message.get("content") or ""), "content")
        return Expressed(True, ("text",), tuple(walk.spelled))
    if len(calls) != 1:
        return Expressed(False, (), error="one call per turn")
    function = calls[0]["function"]
    schema = _Schema(tools, function["name"])
    if not schema.offered:
        return Expressed(False, (), error=f"tool {function['name']} is not offered")
    walk.node(_arguments(function), schema.root, "")
    return Expressed(not walk.error, tuple(walk.kinds), tuple(walk.spelled), walk.error)


class _Walk:
    def __init__(self, sources: Sources, words: frozenset[str]) -> None:
        self.sources, self.words = sources, words
        self.kinds: list[str] = []
        self.spelled: list[str] = []
        self.error = ""

    def node(self, value: Any, schema: _Node | None, path: str) -> None:
        if schema is None:
            self.error = self.error or f"{path}: a field the schema does not have"
            return
        if isinstance(value, Mapping):
            for key, inner in value.items():
                self.node(inner, schema.field(key), f"{path}.{key}")
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                self.node(inner, schema.items(), f"{path}[{i}]")
        elif value is None or isinstance(value, bool):
            self.kinds.append("choice")
        elif "enum" in schema.schema:
            self.kinds.append("choice")
            if value not in schema.schema["enum"]:
                self.error = self.error or f"{path}: {value!r} is not in the enum"
        elif isinstance(value, int | float):
            self.kinds.append(self.number(float(value)) or self.spell(path, str(value)))
        elif schema.is_text():
            self.kinds.append("text")
            self.text(str(value), path)
        elif str(value) in self.sources.strings:
            self.kinds.append("copy")
        else:
            self.kinds.append(self.spell(path, str(value)))

    def number(self, value: float) -> str:
        if _copied(value, self.sources.numbers):
            return "copy"
        return "derived" if derivable(value, self.sources.numbers) else ""

    def spell(self, path: str, part: str) -> str:
        self.spelled.append(f"{path}: {part}")
        return "spelled"

    def text(self, text: str, path: str) -> None:
        """Each part of `text`: punctuation, a lexicon word, a copied string, a copied or derived
        number (`1,234.50` read as 1234.5), hyphenated parts each of those; else spelled."""
        for part in _TEXT_PART.findall(text):
            if self.part(part) or all(self.part(p) for p in _SUBPART.findall(part)):
                continue
            self.spell(path, part)

    def part(self, part: str) -> bool:
        if len(part) == 1 and not part.isalnum():
            return True
        if part in self.words or part in self.sources.strings:
            return True
        return bool(_NUMBER.match(part)) and bool(self.number(float(part.replace(",", ""))))


def _copied(value: float, numbers: NDArray[np.float64]) -> bool:
    at = int(np.searchsorted(numbers, value - TOLERANCE))
    return at < len(numbers) and abs(float(numbers[at]) - value) <= TOLERANCE


def _pairs(numbers: NDArray[np.float64]) -> NDArray[np.float64]:
    a, b = numbers[:, None], numbers[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.concatenate([(a + b).ravel(), (a - b).ravel(), (a * b).ravel(), (a / b).ravel()])
    return np.unique(out[np.isfinite(out)])


def derivable(target: float, numbers: NDArray[np.float64]) -> bool:
    """Whether `target` is, to `TOLERANCE`, `a op b` or `(a op b) op c` / `c op (a op b)` over
    `numbers` (`op` one of `+ - * /`)."""
    pairs = _pairs(numbers)
    if _copied(target, pairs):
        return True
    if MAX_OPERANDS < 3 or target == 0.0:
        return False
    c = numbers[numbers != 0.0]
    ones = np.full_like(c, TOLERANCE)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        wanted = (  # (pair value p that would give the target, the tolerance on p)
            (target - c, ones),  # p + c
            (target + c, ones),  # p - c
            (c - target, ones),  # c - p
            (target / c, TOLERANCE / np.abs(c)),  # p * c
            (target * c, TOLERANCE * np.abs(c)),  # p / c
            (c / target, TOLERANCE * np.abs(c) / target**2),  # c / p
        )
    return any(_near(pairs, p, width) for p, width in wanted)


def _near(sorted_values: NDArray[np.float64], p: NDArray[np.float64], width: NDArray[np.float64]) -> bool:
    keep = np.isfinite(p) & np.isfinite(width)
    p, width = p[keep], width[keep]
    at = np.minimum(np.searchsorted(sorted_values, p - width), len(sorted_values) - 1)
    return bool((np.abs(sorted_values[at] - p) <= width).any())
