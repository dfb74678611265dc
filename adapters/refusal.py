"""`DomainRefusal`: a business system refused a request, with a stable code and what to do instead.

Each domain subclasses it with its own codes (`adapters.<domain>.errors.DomainError`) and the HTTP
status its live system answers each code with; both backends return the same tool error for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from adapters.backend import ToolFailure
from schemas.tools import ToolError

C = TypeVar("C", bound=str)


class DomainRefusal(Exception, Generic[C]):
    """A typed refusal by the domain; `code` is stable, `message` tells the agent what to do instead."""

    http_statuses: ClassVar[Mapping[str, int]] = {}
    """The live system's status per code; a code not listed is a business refusal (409)."""

    def __init__(self, code: C, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code: C = code
        self.message = message
        self.details = details

    @property
    def http_status(self) -> int:
        return self.http_statuses.get(self.code, 409)

    def to_tool_error(self, status_code: int | None = None) -> ToolError:
        """The refusal as the tool error both backends return (same message, same details)."""
        return ToolError(
            kind="domain",
            message=self.message,
            status_code=status_code,
            retryable=False,
            details={"code": self.code, **self.details},
        )

    def to_failure(self, status_code: int | None = None) -> ToolFailure:
        return ToolFailure(self.to_tool_error(status_code))
