"""`LiveBackend`: the credit tools over HTTP against the fund's deal system (the sandbox in demos
and tests).

Failure rules, because a retried write can record a recommendation twice: reads are retried with
exponential backoff (`adapters.http_failures` says on what); writes are never retried, and one that
may have happened is outcome `unknown`; a business refusal is the sim's `domain` error.

A period's statements arrive as the borrower's document (workbook or PDF text) and are read here
(`adapters.credit.documents`): damage the reader repairs exactly is repaired; a figure it finds
suspect or cannot read fails the call (kind `backend`, naming the cell or line), so a wrong figure
never reaches the agent.
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
from adapters.http_failures import RETRYABLE_READ_STATUS, http_failure, transport_failure
from schemas.tools import SideEffect, ToolError


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
                last = transport_failure(exc, is_read, attempt)
                continue
            if response.status_code < 400:
                return _result(tool, args, response, endpoint.document)
            last = http_failure(response, is_read, attempt)
            if not (is_read and response.status_code in RETRYABLE_READ_STATUS):
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
