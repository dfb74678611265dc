"""A client for a sandbox's /admin routes (with its admin token): worlds, reset, faults; a domain's
client adds its own control routes."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

import httpx
from pydantic import BaseModel

from adapters.faults import FaultConfig

W = TypeVar("W", bound=BaseModel)


class SandboxAdmin(Generic[W]):
    """The control routes every sandbox has."""

    world_type: ClassVar[type[BaseModel]]

    def __init__(self, base_url: str, token: str, client: httpx.Client | None = None) -> None:
        self._client = client or httpx.Client(base_url=base_url, timeout=10)
        self._client.headers["Authorization"] = f"Bearer {token}"

    def _ok(self, response: httpx.Response) -> Any:
        response.raise_for_status()
        return response.json()

    def _put_model(self, path: str, model: BaseModel) -> Any:
        body = model.model_dump_json()
        return self._ok(self._client.put(path, content=body, headers={"content-type": "application/json"}))

    def reset(self) -> None:
        self._ok(self._client.post("/admin/reset"))

    def load(self, world: W) -> None:
        self._put_model("/admin/world", world)

    def world(self) -> W:
        world: W = self.world_type.model_validate(self._ok(self._client.get("/admin/world")))  # type: ignore[assignment]
        return world

    def set_faults(self, faults: FaultConfig) -> None:
        self._ok(self._client.put("/admin/faults", json=faults.model_dump(mode="json")))

    def close(self) -> None:
        self._client.close()
