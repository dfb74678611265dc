"""A reviewer's own resolution, from the review form's moves. Pure.

The form lists the domain's moves (`ReviewDomain.moves`: write tools whose fields come from their
argument models). The moves a reviewer ticks, with the values filled in (amounts, codes, queues,
documents of the case), become write calls on the worked item, validated by the tools' own argument
models, and the domain says what they leave in the world (`ReviewDomain.move_facts`): that is one
acceptable resolution of the spec. Where it replaces the reference specialist's resolution, its
calls after the reference's reads are the task's gold, so the gates prove it can be met.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from adapters.drafting.store import Gold
from bridge.api.review_domain import Move, MoveField, ReviewDomain
from schemas.tasks import Resolution
from schemas.tools import ToolCall

REVIEWER_REASON = "the reviewer's resolution"


@dataclass(frozen=True)
class Mine:
    """The reviewer's resolution: its calls and what they leave in the world."""

    calls: tuple[ToolCall, ...]
    resolution: Resolution

    @property
    def tools(self) -> frozenset[str]:
        return frozenset(c.name for c in self.calls)

    def gold(self, reference: Sequence[ToolCall], writes: Sequence[str]) -> Gold:
        """The gold where this resolution replaces the reference's: its reads, then these calls."""
        reads = tuple(c for c in reference if c.name not in writes)
        return Gold(calls=(*reads, *self.calls))


def picked(fields: Mapping[str, Sequence[str]]) -> frozenset[str]:
    """The moves the form ticks."""
    return frozenset(v.strip() for v in fields.get("move", ()))


def values(fields: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """The moves' fields as sent (`<tool>.<argument>` → values), to show them again."""
    return {k: tuple(v) for k, v in fields.items() if "." in k}


def mine(
    fields: Mapping[str, Sequence[str]], domain: ReviewDomain, item_id: str, problems: list[str]
) -> Mine | None:
    """The resolution the ticked moves state (None when none is ticked or one has problems, each
    added to `problems`)."""
    chosen = picked(fields)
    unknown = sorted(chosen - {m.tool for m in domain.moves})
    problems += [f"{tool!r} is not a move this domain's form offers" for tool in unknown]
    moves = [m for m in domain.moves if m.tool in chosen]
    if not moves or unknown:
        return None
    calls = []
    for i, move in enumerate(moves, start=1):
        call = _call(fields, move, domain.item_field, item_id, problems)
        if call is not None:
            calls.append(call.model_copy(update={"call_id": f"reviewer-{i}"}))
    if len(calls) < len(moves):
        return None
    if domain.move_facts is None:
        problems.append("this domain states no facts for the form's moves: give the spec as JSON")
        return None
    try:
        facts = domain.move_facts(item_id, calls)
    except ValueError as exc:
        problems.append(f"your resolution: {exc}")
        return None
    name = "reviewer:" + "+".join(c.name for c in calls)
    return Mine(tuple(calls), Resolution(name=name[:128], reason=REVIEWER_REASON, assertions=facts))


def _call(
    fields: Mapping[str, Sequence[str]], move: Move, item_field: str, item_id: str, problems: list[str]
) -> ToolCall | None:
    arguments: dict[str, object] = {item_field: item_id} if item_field else {}
    before = len(problems)
    for f in move.fields:
        given = [v.strip() for v in fields.get(f"{move.tool}.{f.name}", ()) if v.strip()]
        value = _value(f, given, move, problems)
        if value is not None:
            arguments[f.name] = value
    if len(problems) > before:
        return None
    try:
        args = move.args_model.model_validate(arguments)
    except ValidationError as exc:
        for error in exc.errors()[:5]:
            where = ".".join(str(p) for p in error["loc"]) or "arguments"
            problems.append(f"{move.label}: {where}: {error['msg']}")
        return None
    return ToolCall(
        call_id="reviewer", name=move.tool, arguments=args.model_dump(mode="json", exclude_none=True)
    )


def _value(f: MoveField, given: list[str], move: Move, problems: list[str]) -> object:
    if f.kind == "choices":
        return given
    if not given:
        if f.required:
            problems.append(f"{move.label}: fill in {f.label.rstrip('.').lower()}")
        return None
    if f.kind == "amount":
        try:
            return float(given[0].replace("$", "").replace(",", ""))
        except ValueError:
            problems.append(f"{move.label}: {given[0]!r} is not an amount")
            return None
    if f.kind == "choice" and given[0] not in f.choices:
        problems.append(f"{move.label}: {given[0]!r} is not one of {', '.join(f.choices)}")
        return None
    return given[0]
