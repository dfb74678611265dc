"""The policy gate: `loopline serve-policy`'s keys and adapter checks in front of a vLLM server.

vLLM has one bearer key, reads any adapter path it is handed and reports no fingerprint. So in
production vLLM listens on the pod's loopback only, with a key only the gate holds, and the gate
(the pod's one open port) applies the policy server's own rules before anything reaches it:

- every route needs the serving key, loading and unloading the release key (`training.serve.access`);
- an adapter loads only from under the adapter root, is copied once into a private folder the two
  containers share, checked there (safetensors header, the fingerprint the release store
  registered for its name) and handed to vLLM as that copy, so vLLM never reads files that changed
  after the check; a name once used never points at other weights (`training.serve.pool`);
- `GET /v1/models` is vLLM's list with each adapter's `fingerprint` added, which the bridge's
  router checks before routing (`loopline.release.routing.served_fingerprints`).

Chat completions (streamed or not), health and metrics are passed through as they came, with the
gate's own key in place of the caller's; no other route of vLLM is reachable.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from training.serve.access import AccessKeys, refusal
from training.serve.app import add_release_routes
from training.serve.pool import AdapterError, FingerprintLookup, PolicyPool

HOP_HEADERS = frozenset(
    {"authorization", "host", "content-length", "connection", "keep-alive", "transfer-encoding", "upgrade"}
)
"""Request headers the gate does not pass on (the caller's key among them)."""

PASSED = frozenset({"/v1/chat/completions", "/health", "/metrics"})
"""The vLLM routes the gate passes through; every other route of vLLM (its admin and dev routes
among them) is a 404 here."""


class UpstreamError(RuntimeError):
    """vLLM refused or failed a load or unload."""


@dataclass(frozen=True)
class UpstreamAdapter:
    """An adapter (or the base) as vLLM serves it; releasing it asks vLLM to unload it."""

    upstream: httpx.Client
    name: str
    adapter: bool

    def release(self) -> None:
        """Unload the adapter from vLLM (the pool calls this on unload)."""
        if self.adapter:
            _expect_ok(self.upstream.post("/v1/unload_lora_adapter", json={"lora_name": self.name}))


def create_gate(
    upstream_url: str,
    upstream_key: str,
    base_name: str,
    *,
    keys: AccessKeys,
    adapter_root: Path,
    private: Path,
    registered: FingerprintLookup,
) -> FastAPI:
    """The gate in front of the vLLM server at `upstream_url` serving `base_name`; `private` is
    the folder (shared with vLLM, readable by no other user) the checked copies are kept in."""
    headers = {"Authorization": f"Bearer {upstream_key}"}
    upstream = httpx.Client(base_url=upstream_url, headers=headers, timeout=300)
    passing = httpx.AsyncClient(base_url=upstream_url, headers=headers, timeout=300)

    def load(copy: Path | None, name: str) -> UpstreamAdapter:
        if copy is not None:
            _expect_ok(
                upstream.post("/v1/load_lora_adapter", json={"lora_name": name, "lora_path": str(copy)})
            )
        return UpstreamAdapter(upstream, name, adapter=copy is not None)

    pool = PolicyPool(load, base_name, root=adapter_root, registered=registered, private=private)
    app = FastAPI(title="loopline policy gate", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.pool = pool

    @app.middleware("http")
    async def authorize(request: Request, call_next: Any) -> Any:
        refused = refusal(request.url.path, request.headers.get("authorization"), keys)
        if refused is None:
            return await call_next(request)
        return _error(refused.status, refused.message)

    @app.exception_handler(AdapterError)
    async def adapter_error(_request: Request, exc: AdapterError) -> JSONResponse:
        return _error(exc.status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, str(exc.errors()[0].get("msg", "the request body is invalid")))

    add_release_routes(app, pool)

    @app.get("/v1/models")
    async def models() -> Any:
        answer = await passing.get("/v1/models")
        if answer.status_code != 200:
            return Response(answer.content, answer.status_code, media_type=answer.headers.get("content-type"))
        prints = {s.name: s.fingerprint for s in pool.served() if s.fingerprint is not None}
        listed = answer.json()
        for model in listed.get("data", []):
            if isinstance(model, dict) and model.get("id") in prints:
                model["fingerprint"] = prints[model["id"]]
        return listed

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    async def pass_through(path: str, request: Request) -> Response:
        if f"/{path}" not in PASSED:
            return _error(404, f"/{path} is not a route of this server")
        sent = passing.build_request(
            request.method,
            f"/{path}",
            params=request.query_params,
            headers={k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS},
            content=await request.body(),
        )
        answer = await passing.send(sent, stream=True)
        kept = {k: v for k, v in answer.headers.items() if k.lower() in {"content-type", "cache-control"}}

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    yield chunk
            finally:
                await answer.aclose()

        return StreamingResponse(body(), answer.status_code, headers=kept)

    return app


def _expect_ok(answer: httpx.Response) -> None:
    if answer.status_code != 200:
        raise UpstreamError(f"vLLM answered {answer.status_code}: {answer.text[:300]}")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": "invalid_request_error", "code": status}},
        status,
        headers={"WWW-Authenticate": "Bearer"} if status == 401 else None,
    )
