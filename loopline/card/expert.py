"""What the verifier card needs of an expert case, whatever its domain (the domain's descriptor
supplies the cases)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from schemas.tasks import Task


class ExpertLike(Protocol):
    """An expert case, whatever its domain."""

    @property
    def id(self) -> str: ...

    @property
    def golds(self) -> Sequence[Any]: ...

    @property
    def wrong_moves(self) -> Sequence[Any]: ...

    def task(self) -> Task: ...
