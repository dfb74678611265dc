"""`LiveBackend`: the RCM tools over HTTP against the live system (in demos and tests, the sandbox).

Failure rules, because a wrong retry can bill a patient twice:
- reads (side effect `read`) are retried with exponential backoff on timeouts, transport errors,
  5xx and 429; after the last attempt they fail with `retryable=True`;
- writes are never retried. A write whose request may have reached the server and got no
  definite answer (read timeout, connection lost after sending, 502/504/500) is outcome
  `unknown`; one that provably never arrived (connect error, connect timeout) or that the server
  refused (4xx, 503) is `failed`;
- a refusal by the business rules comes back as kind `domain` with the server's message and code,
  the same error the sim gives.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from adapters.backend import ToolFailure
from adapters.http_failures import RETRYABLE_READ_STATUS, http_failure, transport_failure
from adapters.rcm.args import GetRemittanceArgs
from adapters.rcm.results import RemittanceResult
from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from adapters.rcm.views import remittance_view
from adapters.rcm.wire import ENDPOINTS, X12_MEDIA_TYPE
from adapters.rcm.x12 import X12ParseError, parse_835
from schemas.tools import SideEffect, ToolError


class LiveBackend:
    """Calls the live RCM system; raises `ToolFailure` with kind http/timeout/transport/domain."""

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
        spec = RCM_TOOLS_BY_NAME.get(tool)
        endpoint = ENDPOINTS.get(tool)
        if spec is None or endpoint is None:
            raise ToolFailure(ToolError(kind="unknown_tool", message=f"no RCM tool {tool!r}"))
        payload = args.model_dump(mode="json")
        # Quoted, so an identifier with `/` or `..` names one resource and never another route.
        path = endpoint.path.format(
            **{name: quote(str(payload.pop(name)), safe="") for name in endpoint.path_params}
        )
        query = {k: v for k, v in payload.items() if v is not None}  # an absent optional argument
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
                return _result(tool, args, response)
            last = http_failure(response, is_read, attempt)
            if not (is_read and response.status_code in RETRYABLE_READ_STATUS):
                raise last
        assert last is not None  # the loop ran at least once and every path set it
        raise last


def _result(tool: str, args: BaseModel, response: httpx.Response) -> BaseModel:
    spec = RCM_TOOLS_BY_NAME[tool]
    try:
        if isinstance(args, GetRemittanceArgs):
            return _remittance_result(args.claim_id, response)
        result: BaseModel = spec.result_model.model_validate_json(response.content)
        return result
    except (ValidationError, X12ParseError, ValueError) as exc:
        message = f"the live system answered {tool} with a response that does not parse: {exc}"
        raise ToolFailure(
            ToolError(kind="backend", message=message, status_code=response.status_code)
        ) from exc


def _remittance_result(claim_id: str, response: httpx.Response) -> RemittanceResult:
    if response.status_code == 204:
        return RemittanceResult(claim_id=claim_id, remittances=[])
    if not response.headers.get("content-type", "").startswith(X12_MEDIA_TYPE):
        raise ValueError(f"expected {X12_MEDIA_TYPE}, got {response.headers.get('content-type')!r}")
    remittances, names = parse_835(response.text)
    views = [remittance_view(r, names.get(r.payer_id, r.payer_id)) for r in remittances]
    return RemittanceResult(claim_id=claim_id, remittances=views)
