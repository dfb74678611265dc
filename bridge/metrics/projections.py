"""The archive's projections as metrics: edge cases by rule and episodes by canary arm."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bridge.store import Engine, StoreError
from bridge.store.tallies import edge_cases_by_rule, episodes_by_arm


class ProjectionCollector(Collector):
    """`loopline_edge_cases`, `loopline_edge_case_occurrences` (by rule) and `loopline_episodes` (by
    route, adapter and status), read from the projections at scrape time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[Any]:
        up = GaugeMetricFamily("loopline_projections_up", "1 when the projections could be read.")
        try:
            rules, arms = edge_cases_by_rule(self.engine), episodes_by_arm(self.engine)
        except StoreError:
            up.add_metric([], 0.0)
            yield up
            return
        up.add_metric([], 1.0)
        yield up
        cases = GaugeMetricFamily(
            "loopline_edge_cases", "Distinct edge cases found, by rule.", labels=["rule"]
        )
        hits = GaugeMetricFamily(
            "loopline_edge_case_occurrences", "Episodes that hit an edge case, by rule.", labels=["rule"]
        )
        for tally in rules:
            cases.add_metric([tally.rule], float(tally.cases))
            hits.add_metric([tally.rule], float(tally.occurrences))
        yield cases
        yield hits
        episodes = GaugeMetricFamily(
            "loopline_episodes",
            "Episodes in the archive by canary arm (route), adapter and status.",
            labels=["route", "adapter", "status"],
        )
        for arm in arms:
            episodes.add_metric([arm.route, arm.adapter_id, arm.status], float(arm.episodes))
        yield episodes
