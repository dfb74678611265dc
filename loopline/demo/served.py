"""The policy that asks a model `loopline serve-policy` serves, so the environments can score the
episodes it answers in process: the bridge's own client (`bridge.runtime.OpenAIChatPolicy`), with
the route of an in-process evaluation."""

from __future__ import annotations

from bridge.runtime import OpenAIChatPolicy


class ServedPolicy(OpenAIChatPolicy):
    """One model name on an OpenAI-compatible server."""

    def __init__(self, base_url: str, model: str, api_key: str) -> None:
        """`api_key`: the server's serving key."""
        super().__init__(base_url, model, api_key=api_key, route="scripted")
