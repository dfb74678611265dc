"""The embedded stack behind `loopline up|down|status|logs`: SeaweedFS, Tansu and Temporal on loopback.

    from loopline.stack.settings import StackSettings
    from loopline.stack import up, down, status, kafka_settings

    result = up(StackSettings(state_dir=tmp, port_mode="auto"))
    kafka = kafka_settings(result.state)          # KafkaSettings for confluent-kafka clients
    result.state.endpoints.temporal_address       # host:port for temporalio
    down(StackSettings(state_dir=tmp))

The names below load on first use, so importing a leaf module (`loopline.stack.tansu_compat`,
which `loopline.kafka.settings` needs) does not pull in the whole stack or import settings circularly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loopline.stack.errors import BinaryNotFound, ComponentFailed, PortTaken, StackError, StackStateError
    from loopline.stack.health import ComponentStatus, StackStatus, status
    from loopline.stack.lifecycle import DownResult, UpResult, down, up
    from loopline.stack.startup import kafka_settings
    from loopline.stack.state import Endpoints, StackLayout, StackState

_EXPORTS = {
    "BinaryNotFound": "errors",
    "ComponentFailed": "errors",
    "PortTaken": "errors",
    "StackError": "errors",
    "StackStateError": "errors",
    "DownResult": "lifecycle",
    "UpResult": "lifecycle",
    "down": "lifecycle",
    "up": "lifecycle",
    "kafka_settings": "startup",
    "Endpoints": "state",
    "StackLayout": "state",
    "StackState": "state",
    "ComponentStatus": "health",
    "StackStatus": "health",
    "status": "health",
}
__all__ = [
    "BinaryNotFound",
    "ComponentFailed",
    "ComponentStatus",
    "DownResult",
    "Endpoints",
    "PortTaken",
    "StackError",
    "StackLayout",
    "StackState",
    "StackStateError",
    "StackStatus",
    "UpResult",
    "down",
    "kafka_settings",
    "status",
    "up",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'loopline.stack' has no attribute {name!r}")
    return getattr(importlib.import_module(f"loopline.stack.{_EXPORTS[name]}"), name)
