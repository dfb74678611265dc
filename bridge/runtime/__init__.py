"""The agent runtime: runs one episode for a work item against live tools, recording every step.

Ports: `PolicyClient` (who takes the turns: `OpenAIChatPolicy` over HTTP, `ScriptedPolicy` without
a model) and `Recorder` (where the facts go: `bridge.recording.EpisodeRecorder` in production).
`EpisodeRunner` drives the loop. See docs/runtime.md.
"""

from bridge.runtime.config import EpisodeResult, RunnerConfig
from bridge.runtime.escalation import EscalateArgs, builtin_escalate_spec
from bridge.runtime.openai_policy import OpenAIChatPolicy
from bridge.runtime.policy import (
    EscalationRequest,
    Message,
    PolicyClient,
    PolicyError,
    PolicyReply,
    ProposedToolCall,
    Usage,
)
from bridge.runtime.prompt import DEFAULT_SYSTEM_PROMPT
from bridge.runtime.recorder import EpisodeStatus, EscalationTrigger, Recorder, RecorderFactory
from bridge.runtime.retry import RetryPolicy
from bridge.runtime.runner import EpisodeRunner
from bridge.runtime.scripted import ScriptedPolicy, act, ask_human, call, say

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "EpisodeResult",
    "EpisodeRunner",
    "EpisodeStatus",
    "EscalateArgs",
    "EscalationRequest",
    "EscalationTrigger",
    "Message",
    "OpenAIChatPolicy",
    "PolicyClient",
    "PolicyError",
    "PolicyReply",
    "ProposedToolCall",
    "Recorder",
    "RecorderFactory",
    "RetryPolicy",
    "RunnerConfig",
    "ScriptedPolicy",
    "Usage",
    "act",
    "ask_human",
    "builtin_escalate_spec",
    "call",
    "say",
]
