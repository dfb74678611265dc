"""How a domain's tools travel over HTTP: one `Endpoint` per tool, the table the sandbox registers
its routes from and the live backend builds its requests from, so the two cannot drift apart.

Arguments not in the path travel as the JSON body (POST) or the query string (GET); a result comes
back as the result model's JSON unless the endpoint says it is a document (`Document`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from adapters.spec import ToolSpec


@dataclass(frozen=True)
class Document:
    """A result the live system sends as a document (X12 text, a workbook) rather than JSON."""

    media_type: str
    """The media type the OpenAPI document names (the domain may send several)."""
    description: str
    empty: str | None = None
    """What a 204 (no document) means, when the route can answer it."""


@dataclass(frozen=True)
class Endpoint:
    """One tool's HTTP shape."""

    method: Literal["GET", "POST"]
    path: str
    """Path template; `{name}` segments are filled from the argument of that name."""
    document: Document | None = None
    """Set when the response is a document rather than the result model's JSON."""

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))


@dataclass(frozen=True)
class ToolRoutes:
    """A domain's tools and how each travels over HTTP."""

    label: str
    """The domain as error messages name it (`RCM`, `credit`)."""
    tools: Mapping[str, ToolSpec[Any, Any]]
    endpoints: Mapping[str, Endpoint]

    def __post_init__(self) -> None:
        if set(self.endpoints) - set(self.tools):
            raise ValueError(f"endpoints for unknown tools: {sorted(set(self.endpoints) - set(self.tools))}")
