"""bridge.recording's `EpisodeRecorder` fits the runtime's `Recorder` port (mypy checks it too;
this catches drift in a plain test run)."""

from __future__ import annotations

import inspect

import pytest

from bridge.recording import EpisodeRecorder
from engine import Recorder

METHODS = ["started", "model_responded", "tool_called", "tool_returned", "tool_failed", "escalated", "ended"]


@pytest.mark.parametrize("name", METHODS)
def test_episode_recorder_accepts_every_call_the_runtime_makes(name: str) -> None:
    port = inspect.signature(getattr(Recorder, name)).parameters
    real = inspect.signature(getattr(EpisodeRecorder, name)).parameters
    for param in port.values():
        assert param.name in real, f"EpisodeRecorder.{name} lacks {param.name!r}"
        assert real[param.name].kind == param.kind, f"{name}({param.name}) is passed differently"
        if param.default is not inspect.Parameter.empty:
            assert real[param.name].default == param.default
    extra = [p for n, p in real.items() if n not in port]
    assert all(p.default is not inspect.Parameter.empty for p in extra), (
        f"{name} needs more than the port gives"
    )


def test_episode_recorder_names_its_episode() -> None:
    assert isinstance(inspect.getattr_static(EpisodeRecorder, "episode_id"), property)
