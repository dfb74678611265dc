"""`DomainError`: the deal system refused a request (unknown package or period, work already done)."""

from __future__ import annotations

from typing import Literal

from adapters.refusal import DomainRefusal

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


class DomainError(DomainRefusal[DomainCode]):
    """A refusal of this domain; unknown ids are 404, business refusals 409."""

    http_statuses = HTTP_STATUS
