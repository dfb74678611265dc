"""What the verifier card needs of an expert case, whatever its domain (the domain's descriptor
supplies the cases)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from schemas.tasks import Task
from schemas.tools import ToolCall


class Labelled(Protocol):
    """A named gold or wrong trajectory of an expert case."""

    @property
    def name(self) -> str: ...

    def tool_calls(self) -> tuple[ToolCall, ...]: ...


class ExpertLike(Protocol):
    """An expert case, whatever its domain."""

    @property
    def id(self) -> str: ...

    @property
    def golds(self) -> Sequence[Any]: ...

    @property
    def wrong_moves(self) -> Sequence[Any]: ...

    def task(self) -> Task: ...
