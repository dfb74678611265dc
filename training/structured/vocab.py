"""The structured policy's vocabularies: paths, values, qualifiers, tools and action templates.

Built once from the bootstrap data and saved with the model. Index 0 of every table is "unknown";
the template table has spare capacity beyond the templates it was built with, so a LoRA adapter can
learn actions the base never saw (its vocabulary extension travels with the adapter).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.structured.observe import Item
from training.structured.templates import Template, template_key

UNKNOWN = "<unk>"
VALUE_KINDS = frozenset({"str", "word", "bool", "null"})
"""Item kinds whose value itself gets an embedding when it is frequent."""


def value_token(item: Item) -> str:
    """The value vocabulary's key for an item (frequent codes, statuses, small integers)."""
    if item.kind in VALUE_KINDS:
        return f"{item.kind}:{item.value}"
    if (
        item.kind == "num"
        and isinstance(item.value, float)
        and item.value.is_integer()
        and 0 <= item.value <= 31
    ):
        return f"int:{int(item.value)}"
    return UNKNOWN


@dataclass
class Table:
    """Strings ↔ ids, 0 = unknown."""

    names: list[str] = field(default_factory=lambda: [UNKNOWN])

    def __post_init__(self) -> None:
        self._ids = {name: i for i, name in enumerate(self.names)}

    def id(self, name: str) -> int:
        return self._ids.get(name, 0)

    def add(self, name: str) -> int:
        if name not in self._ids:
            self._ids[name] = len(self.names)
            self.names.append(name)
        return self._ids[name]

    def __len__(self) -> int:
        return len(self.names)


@dataclass
class Vocab:
    """Everything the model's embedding tables are indexed by."""

    paths: Table
    values: Table
    qualifiers: Table
    tools: Table
    templates: list[Template]
    template_capacity: int
    """Rows of the decision head: the templates plus room for ones an adapter adds."""

    def __post_init__(self) -> None:
        self._template_ids = {template_key(t): i for i, t in enumerate(self.templates)}

    def template_id(self, template: Template) -> int | None:
        return self._template_ids.get(template_key(template))

    def add_template(self, template: Template) -> int:
        """The template's id, appending it when new; raises when the capacity is spent."""
        found = self.template_id(template)
        if found is not None:
            return found
        if len(self.templates) >= self.template_capacity:
            raise ValueError(f"the template vocabulary is full ({self.template_capacity})")
        self.templates.append(template)
        self._template_ids[template_key(template)] = len(self.templates) - 1
        return len(self.templates) - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "paths": self.paths.names,
            "values": self.values.names,
            "qualifiers": self.qualifiers.names,
            "tools": self.tools.names,
            "templates": self.templates,
            "template_capacity": self.template_capacity,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Vocab:
        return cls(
            paths=Table(list(data["paths"])),
            values=Table(list(data["values"])),
            qualifiers=Table(list(data["qualifiers"])),
            tools=Table(list(data["tools"])),
            templates=list(data["templates"]),
            template_capacity=int(data["template_capacity"]),
        )

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path: Path) -> Vocab:
        return cls.from_json(json.loads(path.read_text()))


def build_vocab(
    episodes: Iterable[tuple[list[Item], list[Template]]],
    *,
    min_episodes: int = 5,
    template_capacity: int = 512,
) -> Vocab:
    """From (final items, actions) of each training episode: every path, qualifier and tool seen,
    values seen in at least `min_episodes` episodes, and every template (ordered by first sight)."""
    paths, qualifiers, tools = Counter[str](), Counter[str](), Counter[str]()
    values = Counter[str]()
    templates: dict[str, Template] = {}
    for items, actions in episodes:
        seen = set()
        for item in items:
            paths[item.path] += 1
            qualifiers[item.qualifier] += 1
            tools[item.tool] += 1
            seen.add(value_token(item))
        values.update(seen - {UNKNOWN})
        for template in actions:
            templates.setdefault(template_key(template), template)
    if len(templates) > template_capacity:
        raise ValueError(f"{len(templates)} templates exceed the capacity {template_capacity}")
    return Vocab(
        paths=Table([UNKNOWN, *sorted(paths)]),
        values=Table([UNKNOWN, *sorted(v for v, n in values.items() if n >= min_episodes)]),
        qualifiers=Table([UNKNOWN, *sorted(q for q in qualifiers if q)]),
        tools=Table([UNKNOWN, *sorted(tools)]),
        templates=list(templates.values()),
        template_capacity=template_capacity,
    )
