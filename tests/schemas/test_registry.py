"""Old event versions are upcast on read; the registry refuses ambiguity."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemas import EventDecodeError, EventRegistry, from_json, to_json
from schemas.codec import from_structured
from schemas.events import Escalated
from schemas.registry import EventData
from tests.schemas.builders import episode


def _legacy_registry() -> EventRegistry:
    """A registry where `loopline.escalated.v0` (with a `why` field) upcasts to v1."""
    registry = EventRegistry()
    registry.register("loopline.escalated.v1")(_EscalatedCopy)

    def v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
        return {"reason": data["why"], "trigger": "policy", "recommendation": None, "queue": None}

    registry.register_upcaster("loopline.escalated.v0", "loopline.escalated.v1", v0_to_v1)
    return registry


class _EscalatedCopy(EventData):
    reason: str
    trigger: str
    recommendation: str | None = None
    queue: str | None = None


def test_an_old_version_is_upcast_to_the_current_model() -> None:
    registry = _legacy_registry()
    doc = json.loads(to_json(episode()[-2]))  # an escalated.v1 event
    doc["type"] = "loopline.escalated.v0"
    doc["data"] = {"why": "credentialing"}
    event = from_structured(doc, registry=registry)
    assert event.type == "loopline.escalated.v1"
    assert isinstance(event.data, _EscalatedCopy)
    assert event.data.reason == "credentialing"


def test_upcasting_can_be_refused_for_audits() -> None:
    doc = json.loads(to_json(episode()[-2]))
    doc["type"] = "loopline.escalated.v0"
    with pytest.raises(EventDecodeError, match="unknown event type"):
        from_structured(doc, registry=_legacy_registry(), upcast=False)


def test_a_failing_upcaster_is_a_decode_error() -> None:
    doc = json.loads(to_json(episode()[-2]))
    doc["type"], doc["data"] = "loopline.escalated.v0", {"no_why": 1}
    with pytest.raises(EventDecodeError):
        from_structured(doc, registry=_legacy_registry())


def test_a_type_cannot_be_registered_twice_or_be_both_current_and_upcast() -> None:
    registry = EventRegistry()
    registry.register("loopline.x.v1")(_EscalatedCopy)
    with pytest.raises(ValueError, match="twice"):
        registry.register("loopline.x.v1")(Escalated)
    with pytest.raises(ValueError, match="either current or upcast"):
        registry.register_upcaster("loopline.x.v1", "loopline.x.v2", lambda d: d)


def test_data_of_the_wrong_model_is_refused() -> None:
    doc = json.loads(to_json(episode()[-2]))
    doc["type"] = "loopline.episode.ended.v1"
    with pytest.raises(EventDecodeError, match="data"):
        from_json(json.dumps(doc))
