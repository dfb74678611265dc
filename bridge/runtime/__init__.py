"""The production side of the episode engine: the OpenAI-compatible policy client, canary routing,
and `EpisodeRunner`, which runs `engine` sessions against live tools with durable recorders.
See docs/runtime.md.
"""

from bridge.runtime.openai_policy import OpenAIChatPolicy
from bridge.runtime.retry import RetryPolicy
from bridge.runtime.runner import EpisodeRunner, Scorer

__all__ = ["EpisodeRunner", "OpenAIChatPolicy", "RetryPolicy", "Scorer"]
