"""How a live backend turns HTTP trouble into a typed `ToolFailure`, for every domain.

- reads are retryable on timeouts, transport errors, 5xx and 429;
- a write whose request may have reached the server and got no definite answer (read timeout,
  connection lost after sending, 500/502/504) is outcome `unknown`; one that provably never
  arrived (connect error, connect timeout) or that the server refused (4xx, 503) is `failed`;
- a refusal by the business rules (`{"error": {"kind": "domain", ...}}`) is the sim's own error
  plus the HTTP status.
"""

from __future__ import annotations

from typing import Any

import httpx

from adapters.backend import ToolFailure
from schemas.tools import ToolError, ToolOutcome

AMBIGUOUS_WRITE_STATUS = frozenset({500, 502, 504})
"""Statuses where a write may have been applied before the error: the gateway or app gave up late."""
RETRYABLE_READ_STATUS = frozenset({429, 500, 502, 503, 504})
"""Statuses a read is retried on."""


def transport_failure(exc: httpx.TransportError, is_read: bool, attempt: int) -> ToolFailure:
    never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
    kind = "timeout" if isinstance(exc, httpx.TimeoutException) else "transport"
    if is_read or never_sent:
        note = "" if is_read else " (the request never reached the server)"
        error = ToolError(kind=kind, message=f"{type(exc).__name__}: {exc}{note}", retryable=True)
        return ToolFailure(error, attempts=attempt)
    error = ToolError(
        kind=kind,
        message=f"{type(exc).__name__} after sending a write: it may or may not have taken effect; "
        "check the state before trying again",
        retryable=False,
    )
    return ToolFailure(error, outcome=ToolOutcome.UNKNOWN, attempts=attempt)


def http_failure(response: httpx.Response, is_read: bool, attempt: int) -> ToolFailure:
    status = response.status_code
    body: dict[str, Any] = {}
    try:
        parsed = response.json()
        body = parsed.get("error", {}) if isinstance(parsed, dict) else {}
    except ValueError:
        pass
    if body.get("kind") == "domain":
        # A business refusal: the same error the sim raises, plus the HTTP status.
        error = ToolError.model_validate({**body, "status_code": status})
        return ToolFailure(error, attempts=attempt)
    message = str(body.get("message") or response.reason_phrase or "error")
    details = {"errors": body["details"]["errors"]} if "errors" in body.get("details", {}) else {}
    retryable = status in RETRYABLE_READ_STATUS and is_read
    if not is_read and status in AMBIGUOUS_WRITE_STATUS:
        error = ToolError(
            kind="http",
            status_code=status,
            details=details,
            message=f"HTTP {status} on a write: it may or may not have taken effect ({message})",
        )
        return ToolFailure(error, outcome=ToolOutcome.UNKNOWN, attempts=attempt)
    error = ToolError(
        kind="http",
        message=f"HTTP {status}: {message}",
        status_code=status,
        retryable=retryable,
        details=details,
    )
    return ToolFailure(error, attempts=attempt)
