"""The structured policy's view of a conversation: every value in it, as items it can attend to and copy.

A chat model reads the conversation through its chat template; this policy reads it through this
encoder, the same at training and at serving. The work item's payload, each call's arguments and
each tool result are flattened into items (one scalar value each, with its path, the turn it came
from and the list positions along its path); free text a specialist reads (a document's `text`) is
split into words, each an item with the first word of its line; dates are also given in days
relative to the day the item is worked and to the claim's date of service; and a few derived
values a specialist computes in their head are added as items (sums of adjustment amounts per
group and reason code, per line, over the remittance; days between dates and the date of service;
how far each date lies past each limit in days a tool returned, such as a payer's filing limit),
so that every argument value a call needs can be copied from an item.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from adapters.chat import Message, read_work_item_message

WORK_ITEM = "work_item"
TEXT_KEYS = frozenset({"text"})
"""String fields whose text is split into words (documents)."""
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_WORD = re.compile(r"[A-Za-z0-9$][A-Za-z0-9.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_LINE_HEAD = re.compile(r"^\s*([A-Za-z]+)")


@dataclass(frozen=True)
class Item:
    """One value of the conversation."""

    path: str
    """Where it sits: `work_item.claim_id`, `get_claim.claim.lines.procedure_code`, `call.submit_appeal.basis`."""
    value: str | float | bool | None
    """The value (numbers as float; dates as ISO text)."""
    kind: str
    """`str`, `num`, `bool`, `null`, `date`, `word` (a word of free text) or `derived` (a computed number)."""
    turn: int
    """0 for the work item, then 1, 2, … for each call and its result, in order."""
    tool: str
    """The tool of that turn (`work_item` for turn 0)."""
    index: tuple[int, ...] = ()
    """List positions along the path, outermost first."""
    last: tuple[bool, ...] = ()
    """Whether each of those positions is the list's last."""
    qualifier: str = ""
    """For a word, the first word of its line of text (`Diagnoses`, `Line`, `Rendering`); for a
    derived sum, what it sums (`CO`, `50`, `CO-50`)."""
    word_pos: int = 0
    """For a word: its position in its line."""
    days_from_today: int | None = None
    """For a date: days after the day the item is worked (negative: before)."""
    days_from_service: int | None = None
    """For a date: days after the claim's date of service."""


@dataclass(frozen=True)
class TurnInfo:
    """One call the agent made, and how it went."""

    tool: str
    outcome: str
    """`ok`, `failed`, `unknown`, or `pending` when no result has come back."""
    error_kind: str = ""


@dataclass
class Observation:
    """What the policy sees before its next move."""

    items: list[Item] = field(default_factory=list)
    turns: list[TurnInfo] = field(default_factory=list)
    offered: tuple[str, ...] = ()
    """Tool names offered."""
    today: date | None = None
    service_date: date | None = None


def observe(messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Observation:
    """The observation after `messages` (the conversation so far)."""
    obs = Observation(offered=tuple(t["function"]["name"] for t in tools))
    raw: list[Item] = []
    names: dict[str, tuple[int, str]] = {}
    for message in messages:
        role = message.get("role")
        if role == "user":
            item = read_work_item_message(message)
            if item is not None:
                raw += _flatten(item.payload, WORK_ITEM, turn=0, tool=WORK_ITEM)
        elif role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call["function"]
                turn = len(obs.turns) + 1
                names[str(call.get("id"))] = (turn, function["name"])
                obs.turns.append(TurnInfo(function["name"], "pending"))
                arguments = without_nulls(_loads(function.get("arguments")))
                if isinstance(arguments, dict):
                    raw += _flatten(arguments, f"call.{function['name']}", turn=turn, tool=function["name"])
        elif role == "tool":
            turn, tool = names.get(str(message.get("tool_call_id")), (len(obs.turns), "unknown"))
            body = _loads(message.get("content"))
            if not isinstance(body, dict):
                continue
            found = body.get("error")
            error: dict[str, Any] = found if isinstance(found, dict) else {}
            if 0 < turn <= len(obs.turns):
                obs.turns[turn - 1] = TurnInfo(tool, str(body.get("outcome")), str(error.get("kind") or ""))
            if body.get("result") is not None:
                raw += _flatten(body["result"], tool, turn=turn, tool=tool)
    obs.today = _today(raw)
    obs.service_date = _service_date(raw)
    obs.items = [_dated(i, obs.today, obs.service_date) for i in raw] + _derived(raw, obs.service_date)
    obs.items += _margins(raw, obs.today, obs.service_date)
    return obs


def without_nulls(value: Any) -> Any:
    """Call arguments without their null-valued keys, at every depth. A row written for strict mode
    carries every key its tool's strict schema requires, an optional one left out as null; those
    nulls say nothing about the case, so the policy sees a call the same whether it was written
    short or strict (its templates keep them: the calls it writes stay strict)."""
    if isinstance(value, Mapping):
        return {key: without_nulls(inner) for key, inner in value.items() if inner is not None}
    if isinstance(value, list):
        return [without_nulls(inner) for inner in value]
    return value


def _loads(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _flatten(
    value: Any,
    path: str,
    *,
    turn: int,
    tool: str,
    index: tuple[int, ...] = (),
    last: tuple[bool, ...] = (),
) -> Iterator[Item]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _flatten(inner, f"{path}.{key}", turn=turn, tool=tool, index=index, last=last)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _flatten(
                inner, path, turn=turn, tool=tool, index=(*index, i), last=(*last, i == len(value) - 1)
            )
    elif isinstance(value, str) and path.rsplit(".", 1)[-1] in TEXT_KEYS:
        yield from _words(value, path, turn=turn, tool=tool, index=index, last=last)
    else:
        yield Item(path, *_scalar(value), turn=turn, tool=tool, index=index, last=last)


def _scalar(value: Any) -> tuple[str | float | bool | None, str]:
    if value is None:
        return None, "null"
    if isinstance(value, bool):
        return value, "bool"
    if isinstance(value, int | float):
        return float(value), "num"
    text = str(value)
    return text, "date" if _DATE.match(text) else "str"


def _words(
    text: str, path: str, *, turn: int, tool: str, index: tuple[int, ...], last: tuple[bool, ...]
) -> Iterator[Item]:
    for line in text.splitlines():
        head = _LINE_HEAD.match(line)
        for position, match in enumerate(_WORD.finditer(line)):
            yield Item(
                f"{path}.word",
                match.group(0),
                "word",
                turn=turn,
                tool=tool,
                index=index,
                last=last,
                qualifier=head.group(1) if head else "",
                word_pos=position,
            )


def _today(items: Sequence[Item]) -> date | None:
    found = next((i.value for i in items if i.path == f"{WORK_ITEM}.worked_on"), None)
    return date.fromisoformat(found) if isinstance(found, str) and _DATE.match(found) else None


def _service_date(items: Sequence[Item]) -> date | None:
    dates = [i.value for i in items if i.kind == "date" and i.path.endswith(".service_date")]
    return min(date.fromisoformat(str(d)) for d in dates) if dates else None


def _dated(item: Item, today: date | None, service: date | None) -> Item:
    if item.kind != "date" or not isinstance(item.value, str):
        return item
    day = date.fromisoformat(item.value)
    return Item(
        **{
            **item.__dict__,
            "days_from_today": (day - today).days if today else None,
            "days_from_service": (day - service).days if service else None,
        }
    )


def _margins(items: Sequence[Item], today: date | None, service: date | None) -> list[Item]:
    """How far each date lies past each limit in days a tool returned (a `*_days` number: a payer's
    timely filing limit, its appeal window), counted from the date of service to the date and from
    the date to the day worked; positive is past the limit. A specialist makes this subtraction in
    their head ("accepted on day 95 of a 90-day limit"); the model would otherwise have to compare
    two numbers held by two different items."""
    limits = [i for i in items if _is_limit(i)]
    dates = [i for i in items if _is_fact_date(i)]
    out: list[Item] = []
    for limit in limits:
        days = float(limit.value) if isinstance(limit.value, float) else 0.0
        name = limit.path.rpartition(".")[2]
        for item in dates:
            day = date.fromisoformat(str(item.value))
            spans = (("past_limit_from_service", service, day), ("past_limit_to_today", day, today))
            for suffix, start, end in spans:
                if start is not None and end is not None:
                    past = float((end - start).days) - days
                    out.append(
                        Item(
                            f"{item.path}.{suffix}",
                            past,
                            "derived",
                            item.turn,
                            item.tool,
                            item.index,
                            qualifier=name,
                        )
                    )
    return out


def _is_limit(item: Item) -> bool:
    """A number of days a tool returned (not one the policy wrote in a call)."""
    return (
        item.kind == "num"
        and item.turn > 0
        and isinstance(item.value, float)
        and item.path.endswith("_days")
        and not item.path.startswith("call.")
    )


def _is_fact_date(item: Item) -> bool:
    """A date a tool or the work item returned, other than a birth date."""
    return (
        item.kind == "date"
        and isinstance(item.value, str)
        and not item.path.endswith("birth_date")
        and not item.path.startswith("call.")
    )


def _derived(items: Sequence[Item], service: date | None) -> list[Item]:
    """Sums of adjustment amounts (per line; per group, reason and both, over each remittance) and
    each date's distance from the date of service in days."""
    adjustments: dict[tuple[int, str, tuple[int, ...]], dict[str, Any]] = defaultdict(dict)
    tools: dict[int, str] = {}
    for item in items:
        tools[item.turn] = item.tool
        where, _, key = item.path.rpartition(".")
        if where.endswith("adjustments") and key in ("amount", "group_code", "reason_code"):
            adjustments[(item.turn, where, item.index)][key] = item.value
    sums: dict[tuple[int, tuple[int, ...], str, str], float] = defaultdict(float)
    for (turn, where, index), adj in adjustments.items():
        amount = adj.get("amount")
        if not isinstance(amount, float):
            continue
        group, reason = adj.get("group_code"), adj.get("reason_code")
        remit = index[:1]
        for kind, qualifier in (
            ("all", ""),
            ("group", group),
            ("reason", reason),
            ("code", f"{group}-{reason}"),
        ):
            sums[(turn, remit, kind, str(qualifier))] += amount
        if where.endswith("lines.adjustments") and len(index) >= 2:
            sums[(turn, index[:2], "line", "")] += amount
    out = [
        Item(
            f"{tools[turn]}.sum.{kind}",
            round(total, 2),
            "derived",
            turn,
            tools[turn],
            index,
            qualifier=qualifier,
        )
        for (turn, index, kind, qualifier), total in sums.items()
    ]
    if service is not None:
        for item in items:
            if item.kind == "date" and isinstance(item.value, str) and not item.path.endswith("birth_date"):
                days = float((date.fromisoformat(item.value) - service).days)
                out.append(
                    Item(f"{item.path}.days_after_service", days, "derived", item.turn, item.tool, item.index)
                )
    return out
