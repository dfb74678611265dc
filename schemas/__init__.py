"""Loopline's wire contracts: pure pydantic, importing nothing else of ours (design.md §2)."""

from schemas import events as events
from schemas.chain import ChainBreak, EpisodeChain, hash_event, verify_chain
from schemas.codec import EventDecodeError, KafkaRecord, from_json, from_kafka, to_json, to_kafka
from schemas.envelope import GENESIS_HASH, Event
from schemas.ids import new_id
from schemas.registry import DEFAULT_REGISTRY, EventData, EventRegistry, UnknownEventType
from schemas.tasks import Task, TaskSetManifest, WorkItem
from schemas.tools import SideEffect, ToolCall, ToolError, ToolOutcome, ToolResult
from schemas.verdicts import CheckResult, Verdict

__all__ = [
    "DEFAULT_REGISTRY",
    "GENESIS_HASH",
    "ChainBreak",
    "CheckResult",
    "EpisodeChain",
    "Event",
    "EventData",
    "EventDecodeError",
    "EventRegistry",
    "KafkaRecord",
    "SideEffect",
    "Task",
    "TaskSetManifest",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
    "ToolResult",
    "UnknownEventType",
    "Verdict",
    "WorkItem",
    "events",
    "from_json",
    "from_kafka",
    "hash_event",
    "new_id",
    "to_json",
    "to_kafka",
    "verify_chain",
]
