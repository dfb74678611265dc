"""One POST to an OpenAI-compatible `/v1/chat/completions` endpoint, for the model-backed helpers
of `envs` (the red-team attacker, the rubric judge). Any failure is a `ChatEndpointError` with
the endpoint and what went wrong."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx


class ChatEndpointError(RuntimeError):
    """The endpoint could not be reached or did not answer with JSON."""


def post_chat(
    base_url: str,
    body: Mapping[str, Any],
    *,
    api_key: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float = 60.0,
) -> Any:
    """The endpoint's JSON answer to `body`."""
    sent = dict(headers or {})
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + "/chat/completions"
    try:
        response = httpx.post(url, json=dict(body), headers=sent, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise ChatEndpointError(f"{url}: {type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        raise ChatEndpointError(f"{url} answered {response.status_code}: {response.text[:300]}")
    try:
        return response.json()
    except ValueError as exc:
        raise ChatEndpointError(f"{url} answered something that is not JSON: {response.text[:300]}") from exc
