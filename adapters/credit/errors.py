"""`DomainError`: the deal system refused a request (unknown package or period, work already done)."""

from __future__ import annotations

from typing import Any, Literal

from adapters.backend import ToolFailure
from schemas.tools import ToolError

DomainCode = Literal[
    "unknown_package",
    "unknown_period",
    "package_closed",
    "conditions_required",
    "conditions_not_allowed",
    "already_requested",
]

# HTTP status a live deal system answers a refusal with: unknown ids are 404, business refusals 409.
HTTP_STATUS: dict[str, int] = {"unknown_package": 404, "unknown_period": 404}


class DomainError(Exception):
    """A typed refusal by the domain; `code` is stable, `message` tells the agent what to do instead."""

    def __init__(self, code: DomainCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code: DomainCode = code
        self.message = message
        self.details = details

    @property
    def http_status(self) -> int:
        return HTTP_STATUS.get(self.code, 409)

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
