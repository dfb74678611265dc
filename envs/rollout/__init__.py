"""Rollouts: run policies over task sets and record them as production events."""

from envs.rollout.episode import EpisodeRecord, run_episode
from envs.rollout.policy import NOOP, CallsPolicy, History, Plan, Policy, ScriptedPolicy, do_nothing
from envs.rollout.report import CategoryStats, category_of, stats_table, summarize
from envs.rollout.runner import RolloutConfig, rollout_one, run_rollouts
from envs.rollout.sink import EventSink, JsonlEventSink, MemoryEventSink

__all__ = [
    "NOOP",
    "CallsPolicy",
    "CategoryStats",
    "EpisodeRecord",
    "EventSink",
    "History",
    "JsonlEventSink",
    "MemoryEventSink",
    "Plan",
    "Policy",
    "RolloutConfig",
    "ScriptedPolicy",
    "category_of",
    "do_nothing",
    "rollout_one",
    "run_episode",
    "run_rollouts",
    "stats_table",
    "summarize",
]
