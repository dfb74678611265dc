"""`HttpLiveBackend`: a domain's tools over HTTP against its live system (in demos and tests, the
sandbox), built from the domain's `ToolRoutes`.

Failure rules, because a wrong retry can bill a patient twice or record a recommendation twice:
- reads (side effect `read`) are retried with exponential backoff on timeouts, transport errors,
  5xx and 429; after the last attempt they fail with `retryable=True`;
- writes are never retried. A write whose request may have reached the server and got no
  definite answer (read timeout, connection lost after sending, 502/504/500) is outcome
  `unknown`; one that provably never arrived (connect error, connect timeout) or that the server
  refused (4xx, 503) is `failed`;
- a refusal by the business rules comes back as kind `domain` with the server's message and code,
  the same error the sim gives;
- an answer that does not parse is kind `backend`, so a wrong figure never reaches the agent.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from adapters.backend import ToolFailure
from adapters.http_failures import RETRYABLE_READ_STATUS, http_failure, transport_failure
from adapters.wire import ToolRoutes
from schemas.tools import SideEffect, ToolError


class HttpLiveBackend:
    """Calls a live system; raises `ToolFailure` with kind http/timeout/transport/domain/backend.

    A domain subclasses it with its `routes` and, for endpoints that answer with a document, a
    `read_document` that turns the document into the tool's result."""

    routes: ClassVar[ToolRoutes]

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

    def read_document(self, tool: str, args: BaseModel, response: httpx.Response) -> BaseModel | None:
        """The result a document answer holds; None to read the answer as the result model's JSON."""
        return None

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        spec = self.routes.tools.get(tool)
        endpoint = self.routes.endpoints.get(tool)
        if spec is None or endpoint is None:
            raise ToolFailure(ToolError(kind="unknown_tool", message=f"no {self.routes.label} tool {tool!r}"))
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
                return self._result(tool, args, response, endpoint.document is not None)
            last = http_failure(response, is_read, attempt)
            if not (is_read and response.status_code in RETRYABLE_READ_STATUS):
                raise last
        assert last is not None  # the loop ran at least once and every path set it
        raise last

    def _result(self, tool: str, args: BaseModel, response: httpx.Response, document: bool) -> BaseModel:
        try:
            read = self.read_document(tool, args, response) if document else None
            if read is not None:
                return read
            result: BaseModel = self.routes.tools[tool].result_model.model_validate_json(response.content)
            return result
        except (ValidationError, ValueError) as exc:
            message = f"the live system answered {tool} with a response that does not parse: {exc}"
            raise ToolFailure(
                ToolError(kind="backend", message=message, status_code=response.status_code)
            ) from exc
