"""The registry from CloudEvents `type` to data model, and the upcasters for old versions.

A published schema is never edited. A new major version is a new type (`...v2`) with a new model;
the old type gets an upcaster that turns its data into the new one, so readers only ever handle
the newest version. Upcasters chain: v1 → v2 → v3.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from schemas.base import Contract

TYPE_PREFIX = "loopline."


class EventData(Contract):
    """Base of every event's data model. Subclasses set `TYPE` (the full CloudEvents type)."""

    TYPE: ClassVar[str] = ""
    """The full CloudEvents type; set by `EventRegistry.register`."""


Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
D = TypeVar("D", bound=type[EventData])


class UnknownEventType(ValueError):
    """An event `type` that no model and no upcaster is registered for."""


class EventRegistry:
    """Maps event types to data models, and old types to upcasters."""

    def __init__(self) -> None:
        self._models: dict[str, type[EventData]] = {}
        self._upcasters: dict[str, tuple[str, Upcaster]] = {}

    def register(self, event_type: str) -> Callable[[D], D]:
        """Class decorator: `@registry.register("loopline.tool.called.v1")`."""

        def decorate(model: D) -> D:
            if event_type in self._models:
                raise ValueError(f"event type registered twice: {event_type}")
            model.TYPE = event_type
            self._models[event_type] = model
            return model

        return decorate

    def register_upcaster(self, old_type: str, new_type: str, fn: Upcaster) -> None:
        """Declare that data of `old_type` becomes data of `new_type` through `fn`."""
        if old_type in self._models:
            raise ValueError(f"{old_type} has a model; a type is either current or upcast")
        self._upcasters[old_type] = (new_type, fn)

    def upcast(self, event_type: str, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Apply upcasters until a current type is reached."""
        seen: set[str] = set()
        while event_type not in self._models:
            if event_type not in self._upcasters:
                raise UnknownEventType(f"unknown event type: {event_type!r}")
            if event_type in seen:
                raise ValueError(f"upcaster cycle at {event_type}")
            seen.add(event_type)
            new_type, fn = self._upcasters[event_type]
            try:
                data = fn(data)
            except Exception as exc:  # an upcaster meeting data it cannot read
                raise ValueError(f"upcasting {event_type} failed: {type(exc).__name__}: {exc}") from exc
            event_type = new_type
        return event_type, data

    def model_for(self, event_type: str) -> type[EventData]:
        """The data model of a current event type."""
        try:
            return self._models[event_type]
        except KeyError:
            raise UnknownEventType(f"unknown event type: {event_type!r}") from None

    def types(self) -> list[str]:
        """Every current event type, sorted."""
        return sorted(self._models)

    def retired_types(self) -> list[str]:
        """Every old event type that is read through an upcaster, sorted."""
        return sorted(self._upcasters)

    def __contains__(self, event_type: object) -> bool:
        return event_type in self._models


DEFAULT_REGISTRY = EventRegistry()
