"""Consistent synthetic surrogates for the PHI in recorded tool traffic.

Captured events carry PHI as tokens (`phi_` + 16 hex digits, one per value and tenant); a task
draft must carry neither the raw values nor the tokens. Every PHI-marked field of a tool's argument
or result model gets a surrogate of its own kind (a first name, a birth date, a member id, a
document text), computed from a keyed hash of what was recorded there: the same token gives the
same surrogate everywhere in a draft (the member id in an eligibility call and in the claim stay
one value), different tokens give different surrogates, and nothing about the token survives.
Tokens found anywhere else (free text) are replaced too. Pure.

Domain-neutral: what is PHI comes from each domain's models (`schemas.phi.phi_field`), and the kind
of surrogate from the field's name (`…first_name`, `…last_name`, `…birth_date`, `…member_id`,
`address`, `text`; any other field gets an opaque `SYN-…` value).
"""

from __future__ import annotations

import hashlib
import json
import re
import types
import typing
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel

from schemas.phi import is_phi

TOKEN = re.compile(r"phi_[0-9a-f]{16}")
"""A capture token (`bridge.phi`'s format: `phi_` + 16 hex digits)."""

# fmt: off
_FIRST = (
    "Orion", "Vega", "Lyra", "Altair", "Carina", "Draco", "Electra", "Fornax", "Hydra", "Indus",
    "Juno", "Kepler", "Lumen", "Mira", "Nashira", "Pavo", "Rigel", "Sirona", "Tarazed", "Ursa",
)
_LAST = (
    "Quillfeather", "Stonebrook", "Ashgrove", "Brightwater", "Coldharbor", "Dunmere", "Elderwood",
    "Fallowmere", "Glenhollow", "Hartwell", "Ironvale", "Juniperlee", "Kestrelton", "Larkspur",
    "Mossbridge", "Northfield", "Oakhollow", "Pinecrest", "Ravensworth", "Silverlake",
)
# fmt: on
_STREETS = ("Surrogate Way", "Synthetic Lane", "Placeholder Road", "Example Court")
_TEXT = "Synthetic surrogate of a clinical document: the recorded text is PHI and stays in the vault."


class Surrogates:
    """Maps recorded PHI (tokens, or raw values) to synthetic values, consistently."""

    def __init__(self, key: str = "loopline.surrogates.v1") -> None:
        self._key = key.encode()
        self.count = 0

    def _digest(self, recorded: Any) -> int:
        blob = json.dumps(recorded, sort_keys=True, default=str).encode()
        return int.from_bytes(hashlib.blake2b(blob, key=self._key, digest_size=8).digest(), "big")

    def of(self, field: str, recorded: Any) -> Any:
        """The surrogate for what was recorded in a PHI field named `field` (None stays None)."""
        if recorded is None:
            return None
        self.count += 1
        h = self._digest(recorded)
        name = field.lower()
        if name.endswith("first_name"):
            return _FIRST[h % len(_FIRST)]
        if name.endswith("last_name"):
            return f"{_LAST[h % len(_LAST)]}-{_LAST[(h // len(_LAST)) % len(_LAST)]}"
        if name.endswith("birth_date"):
            return (date(1940, 1, 1) + timedelta(days=h % 23_000)).isoformat()
        if name.endswith("member_id"):
            return f"SYN{h % 10**9:09d}"
        if name == "address":
            return {
                "line1": f"{h % 900 + 100} {_STREETS[h % len(_STREETS)]}",
                "city": "Surrogate City",
                "state": "ZZ",
                "postal_code": f"{h % 100_000:05d}",
            }
        if name == "text":
            return f"{_TEXT} [surrogate {h % 16**8:08x}]"
        return f"SYN-{h % 16**8:08x}"

    def scrub(self, value: Any) -> Any:
        """`value` with every capture token inside any string replaced by a surrogate."""
        if isinstance(value, str):
            return TOKEN.sub(lambda m: str(self.of("value", m.group(0))), value)
        if isinstance(value, Mapping):
            return {k: self.scrub(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub(v) for v in value]
        return value

    def model_data(self, model: type[BaseModel] | None, data: Any) -> Any:
        """`data` (JSON of `model`, as recorded) with each PHI field's value replaced by its
        surrogate, then every leftover token scrubbed; without a model, only the scrub."""
        if model is not None and isinstance(data, Mapping):
            data = self._walk(model, data)
        return self.scrub(data)

    def _walk(self, model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(data)
        for name, info in model.model_fields.items():
            if name not in out:
                continue
            if is_phi(model, name):
                out[name] = self.of(name, out[name])
            else:
                out[name] = self._nested(info.annotation, out[name])
        return out

    def _nested(self, annotation: Any, value: Any) -> Any:
        models = _models(annotation)
        if not models:
            return value
        inner = models[0]
        if isinstance(value, Mapping) and _is_model(annotation):
            return self._walk(inner, value)
        if isinstance(value, list | tuple):
            return [self._walk(inner, v) if isinstance(v, Mapping) else v for v in value]
        if isinstance(value, Mapping):  # dict[str, Model]
            return {k: self._walk(inner, v) if isinstance(v, Mapping) else v for k, v in value.items()}
        return value


def _is_model(annotation: Any) -> bool:
    bare = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    return any(isinstance(a, type) and issubclass(a, BaseModel) for a in bare)


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (directly, optional, or in a list/tuple/dict)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin is None:
        return []
    found: list[type[BaseModel]] = []
    args = typing.get_args(annotation)
    if origin is dict:
        args = args[1:]
    for arg in args:
        if arg is Ellipsis or arg is type(None):
            continue
        if origin in (typing.Union, types.UnionType) or origin in (list, tuple, dict):
            found.extend(_models(arg))
    return found
