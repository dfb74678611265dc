"""`loopline inspect`: an episode's events as a readable timeline."""

from loopline.inspect.timeline import TimelineRow, timeline

__all__ = ["TimelineRow", "timeline"]
