"""`LiveBackend`: the credit tools over HTTP against the fund's deal system (the sandbox in demos
and tests).

Failure rules, because a retried write can record a recommendation twice:
- reads (side effect `read`) are retried with exponential backoff on timeouts, transport errors,
  5xx and 429; after the last attempt they fail with `retryable=True`;
- writes are never retried. A write whose request may have reached the server and got no
  definite answer (read timeout, connection lost after sending, 500/502/504) is outcome
  `unknown`; one that provably never arrived (connect error, connect timeout) or that the server
  refused (4xx, 503) is `failed`;
- a refusal by the business rules comes back as kind `domain` with the server's message and code,
  the same error the sim gives;
- a period's statements arrive as the borrower's document (workbook or PDF text) and are read
  here (`adapters.credit.documents`): damage the reader repairs exactly is repaired; a figure it
  finds suspect or cannot read fails the call (kind `backend`, naming the cell or line), so a
  wrong figure never reaches the agent.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from adapters.backend import ToolFailure
from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.periods import read_period_document
from adapters.credit.results import FinancialStatementsResult
from adapters.credit.tools import CREDIT_TOOLS_BY_NAME
from adapters.credit.wire import ENDPOINTS
from schemas.tools import SideEffect, ToolError, ToolOutcome

# Statuses where a write may have been applied before the error: the gateway or app gave up late.
_AMBIGUOUS_WRITE_STATUS = frozenset({500, 502, 504})
_RETRYABLE_READ_STATUS = frozenset({429, 500, 502, 503, 504})


class LiveBackend:
    """Calls the live deal system; raises `ToolFailure` with kind http/timeout/transport/domain/backend."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 5.0,
        connect_timeout_s: float = 2.0,
        read_attempts: int = 3,
        backoff_s: float = 0.05,
        client: httpx.Client | None = None,
    ) -> None:
        self.read_attempts = max(1, read_attempts)
        self.backoff_s = backoff_s
        self._client = client or httpx.Client(
            base_url=base_url,
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            limits=httpx.Limits(max_keepalive_connections=8),
        )

    def close(self) -> None:
        self._client.close()

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        spec = CREDIT_TOOLS_BY_NAME.get(tool)
        endpoint = ENDPOINTS.get(tool)
        if spec is None or endpoint is None:
            raise ToolFailure(ToolError(kind="unknown_tool", message=f"no credit tool {tool!r}"))
        payload = args.model_dump(mode="json")
        path = endpoint.path.format(
            **{name: quote(str(payload.pop(name)), safe="") for name in endpoint.path_params}
        )
        query = {k: v for k, v in payload.items() if v is not None}
        request: dict[str, Any] = {"json": payload} if endpoint.method == "POST" else {"params": query}
        is_read = spec.side_effect is SideEffect.READ
        attempts = self.read_attempts if is_read else 1
        last: ToolFailure | None = None
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                time.sleep(self.backoff_s * 2 ** (attempt - 2))
            try:
                response = self._client.request(endpoint.method, path, **request)
            except httpx.TransportError as exc:
                last = _transport_failure(exc, is_read, attempt)
                continue
            if response.status_code < 400:
                return _result(tool, args, response, endpoint.document)
            last = _http_failure(response, is_read, attempt)
            if not (is_read and response.status_code in _RETRYABLE_READ_STATUS):
                raise last
        assert last is not None  # the loop ran at least once and every path set it
        raise last


def _result(tool: str, args: BaseModel, response: httpx.Response, document: bool) -> BaseModel:
    spec = CREDIT_TOOLS_BY_NAME[tool]
    media_type = response.headers.get("content-type", "")
    try:
        if document and not media_type.startswith("application/json"):
            period = read_period_document(response.content, media_type)
            return FinancialStatementsResult(package_id=str(getattr(args, "package_id", "")), period=period)
        result: BaseModel = spec.result_model.model_validate_json(response.content)
        return result
    except DocumentError as exc:
        message = f"the borrower's document for this period cannot be relied on: {exc}"
        details = {"location": exc.location, "problem": exc.problem}
        raise ToolFailure(
            ToolError(kind="backend", message=message, status_code=response.status_code, details=details)
        ) from exc
    except (ValidationError, ValueError) as exc:
        message = f"the live system answered {tool} with a response that does not parse: {exc}"
        raise ToolFailure(
            ToolError(kind="backend", message=message, status_code=response.status_code)
        ) from exc


def _transport_failure(exc: httpx.TransportError, is_read: bool, attempt: int) -> ToolFailure:
    never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
    kind = "timeout" if isinstance(exc, httpx.TimeoutException) else "transport"
    if is_read or never_sent:
        note = "" if is_read else " (the request never reached the server)"
        error = ToolError(kind=kind, message=f"{type(exc).__name__}: {exc}{note}", retryable=True)
        return ToolFailure(error, attempts=attempt)
    error = ToolError(
        kind=kind,
        message=f"{type(exc).__name__} after sending a write: it may or may not have taken effect; "
        "check the package's status before trying again",
        retryable=False,
    )
    return ToolFailure(error, outcome=ToolOutcome.UNKNOWN, attempts=attempt)


def _http_failure(response: httpx.Response, is_read: bool, attempt: int) -> ToolFailure:
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
    retryable = status in _RETRYABLE_READ_STATUS and is_read
    if not is_read and status in _AMBIGUOUS_WRITE_STATUS:
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
