"""The one episode engine: every episode (evaluation, training rollouts, the gateway, production)
is an `EpisodeSession`, with the policy, the toolbox's backend, the recorder, the clock and the id
factory as ports, and the domain's part supplied by its `EpisodeRules`. See docs/runtime.md.
"""

from engine.config import Clock, EpisodeConfig, EpisodeResult, IdFactory
from engine.escalate import EscalateArgs, builtin_escalate_spec, builtin_rules
from engine.loop import run_episode
from engine.memory import MemoryRecorder
from engine.plan import Action, Finish, Plan, PlanPolicy, reply_to
from engine.policy import EpisodeView, Policy, Turn
from engine.prompt import written
from engine.recorder import Recorder, RecorderFactory
from engine.reply import (
    EscalationRequest,
    Message,
    PolicyError,
    PolicyReply,
    ProposedToolCall,
    Usage,
    parse_arguments,
)
from engine.rules import DomainRules, EpisodeRules, EscalationFields
from engine.scripted import ScriptedPolicy, act, ask_human, call, say
from engine.session import EpisodeSession, world_snapshot
from engine.sink import EventSink

__all__ = [
    "Action",
    "Clock",
    "DomainRules",
    "EpisodeConfig",
    "EpisodeResult",
    "EpisodeRules",
    "EpisodeSession",
    "EpisodeView",
    "EscalateArgs",
    "EscalationFields",
    "EscalationRequest",
    "EventSink",
    "Finish",
    "IdFactory",
    "MemoryRecorder",
    "Message",
    "Plan",
    "PlanPolicy",
    "Policy",
    "PolicyError",
    "PolicyReply",
    "ProposedToolCall",
    "Recorder",
    "RecorderFactory",
    "ScriptedPolicy",
    "Turn",
    "Usage",
    "act",
    "ask_human",
    "builtin_escalate_spec",
    "builtin_rules",
    "call",
    "parse_arguments",
    "reply_to",
    "run_episode",
    "say",
    "world_snapshot",
    "written",
]
