"""An OpenAI-compatible chat-completions server in front of any `ChatPolicy`, with LoRA adapters
loaded at run time under names (vLLM's `/v1/load_lora_adapter`), so the bridge's runtime talks to
the embedded policy exactly as it talks to vLLM.

    POST /v1/chat/completions   {model, messages, tools, ...} → chat.completion
    GET  /v1/models             the base and every loaded adapter
    POST /v1/load_lora_adapter  {lora_name, lora_path}
    POST /v1/unload_lora_adapter {lora_name}
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from schemas.ids import new_id
from training.chat import ChatPolicy, completion_body

Loader = Callable[[Path | None, str], ChatPolicy]
"""(adapter folder or None, name) → policy."""


class ChatRequest(BaseModel):
    """The part of an OpenAI chat request this server reads; sampling settings are accepted and
    ignored (decoding is greedy)."""

    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] = Field(default_factory=list)


class LoadAdapter(BaseModel):
    """vLLM's load request."""

    lora_name: str = Field(min_length=1)
    lora_path: str = Field(min_length=1)


class UnloadAdapter(BaseModel):
    """vLLM's unload request."""

    lora_name: str = Field(min_length=1)


def create_app(load: Loader, base_name: str, adapters: Mapping[str, Path] | None = None) -> FastAPI:
    """The server for a base model (`load(None, base_name)`), `adapters` (name → folder) loaded at
    start, and the adapters loaded into it later."""
    app = FastAPI(title="loopline policy server")
    policies: dict[str, ChatPolicy] = {base_name: load(None, base_name)}
    for name, folder in (adapters or {}).items():
        if not (folder / "adapter_config.json").is_file():
            raise FileNotFoundError(f"{folder} holds no LoRA adapter")
        policies[name] = load(folder, name)
    lock = threading.Lock()  # one model at a time: the CPU models are not thread-safe to run in parallel

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": name, "object": "model"} for name in policies]}

    @app.post("/v1/chat/completions")
    def complete(request: ChatRequest) -> dict[str, Any]:
        policy = policies.get(request.model)
        if policy is None:
            raise HTTPException(404, f"model {request.model!r} is not loaded (have {', '.join(policies)})")
        with lock:
            reply = policy.complete(request.messages, request.tools)
        return completion_body(reply, model=request.model, completion_id=f"chatcmpl-{new_id()}")

    @app.post("/v1/load_lora_adapter")
    def load_adapter(request: LoadAdapter) -> dict[str, str]:
        folder = Path(request.lora_path)
        if not (folder / "adapter_config.json").is_file():
            raise HTTPException(400, f"{folder} holds no LoRA adapter")
        policy = load(folder, request.lora_name)
        with lock:
            policies[request.lora_name] = policy
        return {"status": "loaded", "lora_name": request.lora_name}

    @app.post("/v1/unload_lora_adapter")
    def unload_adapter(request: UnloadAdapter) -> dict[str, str]:
        if request.lora_name == base_name or request.lora_name not in policies:
            raise HTTPException(404, f"no adapter {request.lora_name!r} is loaded")
        with lock:
            del policies[request.lora_name]
        return {"status": "unloaded", "lora_name": request.lora_name}

    return app
