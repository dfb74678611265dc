"""An OpenAI-compatible chat-completions server in front of any engine `Policy`, with LoRA adapters
loaded at run time under names as vLLM does, so the bridge's runtime talks to the embedded policy
exactly as it talks to vLLM in production.

    POST /v1/chat/completions    {model, messages, tools, stream, ...} → chat.completion, or its
                                 chunks as server-sent events when `stream` is true
    GET  /v1/models              the base and every loaded adapter (vLLM's `parent`/`root` fields)
    POST /v1/load_lora_adapter   {lora_name, lora_path}
    POST /v1/unload_lora_adapter {lora_name}
    GET  /health
    GET  /metrics                Prometheus text format (`training.serve.metrics`)

Every route needs a bearer key (`training.serve.access`): the serving key for inference, the model
list, health and metrics, the release key for loading and unloading. Adapters load only from under
the adapter root, only as safetensors, and, given the release store's lookup, only with the
fingerprint registered for their name (`training.serve.pool`).

The request's `model` picks the policy, so several adapters serve side by side (champion and
canary). Tool calls are checked against the request's tools (`training.serve.toolcheck`): valid
ones are `tool_calls`, invalid ones are reported under `invalid_tool_calls` and never presented
as calls. A request OpenAI's API would not take (an unknown parameter, role or message key,
`training.serve.protocol`) and any body that does not validate are a 400 with the reason. Errors
have OpenAI's shape (`{"error": {"message", "type", "code"}}`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine import written
from schemas.ids import new_id
from training.serve.access import AccessKeys, refusal
from training.serve.completion import completion_body
from training.serve.metrics import ServeMetrics
from training.serve.pool import AdapterError, FingerprintLookup, Loader, PolicyPool
from training.serve.protocol import request_problem
from training.serve.stream import completion_chunks, server_sent_events
from training.serve.toolcheck import check_calls

__all__ = ["AccessKeys", "ChatRequest", "LoadAdapter", "Loader", "UnloadAdapter", "create_app"]


class ChatRequest(BaseModel):
    """The part of an OpenAI chat request this server reads; sampling settings are accepted and
    ignored (decoding is greedy)."""

    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    stream: bool | None = False
    stream_options: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _openai_request(cls, data: Any) -> Any:
        problem = request_problem(data)
        if problem is not None:
            raise ValueError(problem)
        return data


class LoadAdapter(BaseModel):
    """vLLM's load request."""

    lora_name: str = Field(min_length=1, max_length=200)
    lora_path: str = Field(min_length=1)


class UnloadAdapter(BaseModel):
    """vLLM's unload request."""

    lora_name: str = Field(min_length=1, max_length=200)


_ERROR_TYPES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    503: "ServiceUnavailableError",
}


def create_app(
    load: Loader,
    base_name: str,
    adapters: Mapping[str, Path] | None = None,
    *,
    keys: AccessKeys,
    adapter_root: Path,
    registered: FingerprintLookup | None = None,
) -> FastAPI:
    """The server for a base model (`load(None, base_name)`), `adapters` (name → folder) loaded at
    start, and the adapters loaded into it later; `keys` guard every route, adapters lie under
    `adapter_root`, and `registered` (the release store's fingerprints) vets each one."""
    pool = PolicyPool(load, base_name, root=adapter_root, registered=registered)
    for name, folder in (adapters or {}).items():
        try:
            pool.load(name, folder)
        except AdapterError as exc:
            raise FileNotFoundError(str(exc)) from exc
    app = FastAPI(title="loopline policy server", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.pool = pool
    metrics = app.state.metrics = ServeMetrics(pool)

    @app.middleware("http")
    async def count_completions(request: Request, call_next: Any) -> Any:
        if request.url.path != "/v1/chat/completions":
            return await call_next(request)
        start = time.perf_counter()
        response = await call_next(request)
        model = getattr(request.state, "model", "-")
        metrics.requests.labels(model, str(response.status_code)).inc()
        metrics.seconds.labels(model).observe(time.perf_counter() - start)
        return response

    @app.middleware("http")
    async def authorize(request: Request, call_next: Any) -> Any:
        refused = refusal(request.url.path, request.headers.get("authorization"), keys)
        if refused is None:
            return await call_next(request)
        kind = _ERROR_TYPES[refused.status]
        return JSONResponse(
            {"error": {"message": refused.message, "type": kind, "code": refused.status}},
            refused.status,
            headers={"WWW-Authenticate": "Bearer"} if refused.status == 401 else None,
        )

    @app.exception_handler(AdapterError)
    async def adapter_error(_request: Request, exc: AdapterError) -> JSONResponse:
        kind = _ERROR_TYPES.get(exc.status, "Error")
        return JSONResponse({"error": {"message": str(exc), "type": kind, "code": exc.status}}, exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"error": {"message": _reason(exc), "type": "invalid_request_error", "code": 400}}, 400
        )

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/metrics", include_in_schema=False)
    def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        data = [
            {
                "id": s.name,
                "object": "model",
                "created": s.created,
                "owned_by": "loopline",
                "root": str(s.folder) if s.folder else s.name,
                "parent": None if s.folder is None else base_name,
                "fingerprint": s.fingerprint,
            }
            for s in pool.served()
        ]
        return {"object": "list", "data": data}

    @app.post("/v1/chat/completions")
    def complete(request: ChatRequest, http: Request) -> Any:
        served = pool.get(request.model)
        http.state.model = served.name
        with pool.running():
            reply = served.policy.complete(request.messages, request.tools)
        checked = check_calls(reply.tool_calls, request.tools)
        metrics.invalid_calls.labels(served.name).inc(len(checked.invalid))
        metrics.tokens.labels(served.name, "prompt").inc(reply.usage.prompt_tokens or 0)
        metrics.tokens.labels(served.name, "completion").inc(reply.usage.completion_tokens or 0)
        shown = written(None if checked.invalid else reply.content, checked.valid, usage=reply.usage)
        completion_id = f"chatcmpl-{new_id()}"
        if request.stream:
            chunks = completion_chunks(
                shown,
                model=request.model,
                completion_id=completion_id,
                include_usage=bool((request.stream_options or {}).get("include_usage")),
                invalid_tool_calls=[i.as_json() for i in checked.invalid],
            )
            return StreamingResponse(server_sent_events(chunks), media_type="text/event-stream")
        body = completion_body(shown, model=request.model, completion_id=completion_id)
        if checked.invalid:
            body["choices"][0]["message"]["invalid_tool_calls"] = [i.as_json() for i in checked.invalid]
        return body

    add_release_routes(app, pool)
    return app


def add_release_routes(app: FastAPI, pool: PolicyPool[Any]) -> None:
    """vLLM's adapter routes over `pool` (the release key is checked before they run): serve-policy's
    and the policy gate's, which answer alike."""

    @app.post("/v1/load_lora_adapter")
    def load_adapter(request: LoadAdapter) -> dict[str, Any]:
        served, fresh = pool.load(request.lora_name, request.lora_path)
        return {
            "status": "loaded" if fresh else "already loaded",
            "lora_name": served.name,
            "fingerprint": served.fingerprint,
            "load_seconds": served.load_seconds,
        }

    @app.post("/v1/unload_lora_adapter")
    def unload_adapter(request: UnloadAdapter) -> dict[str, str]:
        pool.unload(request.lora_name)
        return {"status": "unloaded", "lora_name": request.lora_name}


def _reason(exc: RequestValidationError) -> str:
    """The validation errors as one sentence naming where each is."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "the request body is invalid"
