"""What the review page knows of one domain, handed in by the composition root (the bridge names
no domain): the write tools the decision form offers to forbid, the hand-off tool, the code tables
that put a remittance's codes into words, and the moves a reviewer states a resolution with (each a
write tool whose form fields come from its argument model, and the domain's facts for them)."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from engine.domain import ToolDomain
from schemas.tasks import Assertion
from schemas.tools import SideEffect, ToolCall

_FIRST_SENTENCE = re.compile(r"\.\s+(?=[A-Z])")


@dataclass(frozen=True)
class Codes:
    """Code → description tables; a code missing from them is shown without a description."""

    carc: Mapping[str, str] = field(default_factory=dict)
    """Claim adjustment reason codes."""
    rarc: Mapping[str, str] = field(default_factory=dict)
    """Remittance advice remark codes."""
    groups: Mapping[str, str] = field(default_factory=dict)
    """Adjustment group codes (CO, PR, ...)."""
    claim_status: Mapping[str, str] = field(default_factory=dict)
    """Claim status codes of a remittance."""


FieldKind = Literal["amount", "choice", "choices", "text"]
MoveFacts = Callable[[str, Sequence[ToolCall]], tuple[Assertion, ...]]
"""(the worked item's id, the picked moves as validated calls) → what they leave in the world;
raises `ValueError` for moves that do not go together."""
CaseValues = Callable[[Mapping[str, Any], str], Mapping[str, tuple[str, ...]]]
"""(the draft's world, the worked item's id) → argument name → values of the case to pick from."""


@dataclass(frozen=True)
class MoveField:
    """One argument of a move, as the form asks for it."""

    name: str
    label: str
    kind: FieldKind
    choices: tuple[str, ...] = ()
    required: bool = True


@dataclass(frozen=True)
class Move:
    """A write a reviewer can make part of a resolution."""

    tool: str
    label: str
    fields: tuple[MoveField, ...]
    args_model: type[BaseModel]


def _kind(annotation: Any) -> tuple[FieldKind, tuple[str, ...]] | None:
    """How the form asks for an argument of this type (None: it does not)."""
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(options) == 1:
        annotation = options[0]
    if typing.get_origin(annotation) is Literal:
        return "choice", tuple(str(a) for a in typing.get_args(annotation))
    if annotation in (float, int):
        return "amount", ()
    if typing.get_origin(annotation) is list and typing.get_args(annotation) == (str,):
        return "choices", ()
    if annotation is str:
        return "text", ()
    return None


def move_of(tool: str, label: str, args_model: type[BaseModel], item_field: str) -> Move:
    """A move from its tool's argument model: every argument but the worked item's id."""
    fields = []
    for name, info in args_model.model_fields.items():
        kind = _kind(info.annotation)
        if name == item_field or kind is None:
            continue
        fields.append(MoveField(name, info.description or name, kind[0], kind[1], info.is_required()))
    return Move(tool, label, tuple(fields), args_model)


def _no_values(world: Mapping[str, Any], item_id: str) -> Mapping[str, tuple[str, ...]]:
    return {}


@dataclass(frozen=True)
class ReviewDomain:
    """One domain as the review page needs it."""

    writes: tuple[tuple[str, str], ...] = ()
    """Each tool that changes the world, with the first sentence of its description."""
    escalate_tool: str = ""
    """The tool that hands a case to a person."""
    codes: Codes = field(default_factory=Codes)
    """The domain's code tables."""
    escalations: str = ""
    """The world collection hand-offs are recorded in (an outcome check there with `max_count`
    0 rules a hand-off out)."""
    moves: tuple[Move, ...] = ()
    """The writes a reviewer can state a resolution with."""
    item_field: str = ""
    """The argument of a move that names the worked item (a claim id, say)."""
    move_facts: MoveFacts | None = None
    """What picked moves leave in the world (the domain's outcome facts)."""
    case_values: CaseValues = _no_values
    """Values of a case the form offers for a move's arguments (amounts, documents)."""

    @classmethod
    def of(
        cls,
        tools: ToolDomain,
        codes: Codes | None = None,
        escalations: str = "",
        *,
        moves: Sequence[str] = (),
        item_field: str = "",
        move_facts: MoveFacts | None = None,
        case_values: CaseValues = _no_values,
    ) -> ReviewDomain:
        """From a domain's tools and rules, with its code tables, its hand-offs' collection and
        the moves it offers (tool names, with their facts and the case's values)."""
        writes = tuple(
            (spec.name, _sentence(spec.description))
            for spec in tools.tools
            if spec.side_effect is not SideEffect.READ
        )
        specs = {spec.name: spec for spec in tools.tools}
        offered = tuple(
            move_of(name, _sentence(specs[name].description), specs[name].args_model, item_field)
            for name in moves
        )
        return cls(
            writes,
            tools.rules.escalate_tool,
            codes or Codes(),
            escalations,
            offered,
            item_field,
            move_facts,
            case_values,
        )

    def move(self, tool: str) -> Move | None:
        """The move for `tool`, when the form offers it."""
        return next((m for m in self.moves if m.tool == tool), None)

    @property
    def write_tools(self) -> list[str]:
        """The write tools' names, in the domain's order."""
        return [name for name, _ in self.writes]


def _sentence(description: str) -> str:
    return _FIRST_SENTENCE.split(description, maxsplit=1)[0].rstrip(".")
