"""Rollouts: the engine over task sets with the sim backend, scored by the verifier."""

from envs.rollout.episode import EpisodeRecord, Played, evaluation_config, play, run_episode
from envs.rollout.policy import NOOP, CallsPolicy, Plan, PlanPolicy, Policy, do_nothing
from envs.rollout.reference import reference_policy
from envs.rollout.report import CategoryStats, category_of, stats_table, summarize
from envs.rollout.runner import RolloutConfig, rollout_one, run_rollouts
from envs.rollout.sink import JsonlEventSink, MemoryEventSink

__all__ = [
    "NOOP",
    "CallsPolicy",
    "CategoryStats",
    "EpisodeRecord",
    "JsonlEventSink",
    "MemoryEventSink",
    "Plan",
    "PlanPolicy",
    "Played",
    "Policy",
    "RolloutConfig",
    "category_of",
    "do_nothing",
    "evaluation_config",
    "play",
    "reference_policy",
    "rollout_one",
    "run_episode",
    "run_rollouts",
    "stats_table",
    "summarize",
]
