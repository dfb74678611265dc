"""Derive hypothesis strategies from pydantic models, field by field (annotations + constraints)."""

from __future__ import annotations

import enum
import types
import typing
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import annotated_types as at
from hypothesis import strategies as st
from pydantic import BaseModel

_json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20)
_finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
json_values: st.SearchStrategy[Any] = st.recursive(
    _json_leaf | _finite,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def for_model(model: type[BaseModel]) -> st.SearchStrategy[Any]:
    """Valid instances of `model` (fields generated from their annotations and bounds)."""
    hints = typing.get_type_hints(model)
    fields = {name: _for_field(hints[name], info.metadata) for name, info in model.model_fields.items()}
    return st.fixed_dictionaries(fields).map(model.model_validate)


def _for_field(tp: Any, metadata: list[Any]) -> st.SearchStrategy[Any]:
    bounds = {type(m): m for m in metadata}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[_for_field(a, metadata) for a in args])
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is typing.Annotated:
        return _for_field(args[0], [*metadata, *args[1:]])
    if origin in (tuple, list):
        item = _for_field(args[0], [])
        seq = st.lists(item, max_size=3)
        return seq.map(tuple) if origin is tuple else seq
    if origin is dict:
        return st.dictionaries(st.text(max_size=8), _for_field(args[1], []), max_size=3)
    if tp is Any:
        return json_values
    if tp is type(None):
        return st.none()
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return for_model(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return st.sampled_from(list(tp))
    if tp is bool:
        return st.booleans()
    if tp is int:
        lo = bounds[at.Ge].ge if at.Ge in bounds else -(10**9)
        return st.integers(min_value=int(lo), max_value=10**9)
    if tp is float:
        lo = bounds[at.Ge].ge if at.Ge in bounds else -1e9
        hi = bounds[at.Le].le if at.Le in bounds else 1e9
        strat = st.floats(min_value=float(lo), max_value=float(hi), allow_nan=False)
        return strat.filter(lambda v: v > bounds[at.Gt].gt) if at.Gt in bounds else strat
    if tp is str:
        lo = bounds[at.MinLen].min_length if at.MinLen in bounds else 0
        hi = bounds[at.MaxLen].max_length if at.MaxLen in bounds else 40
        pattern = next((m.pattern for m in metadata if getattr(m, "pattern", None)), None)
        if pattern is not None:
            regex = st.from_regex(pattern, fullmatch=True)
            return regex.filter(lambda v: lo <= len(v) <= min(hi, 40) and "\n" not in v[-1:])
        return st.text(min_size=lo, max_size=min(hi, 40))
    if tp is Decimal:
        return st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False)
    if tp is datetime:
        return st.datetimes(
            min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
        )
    if tp is date:
        return st.dates()
    raise TypeError(f"no strategy for {tp!r}")
