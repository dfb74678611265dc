"""Counts over the archive and projections that `/metrics` reports: edge cases by rule, episodes by
canary arm, and the last Kafka offset archived per partition (the projector's position)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bridge.store.tables import ARCHIVE_TABLE, EDGE_CASES, EPISODES


@dataclass(frozen=True)
class RuleTally:
    """One edge-case rule's findings."""

    rule: str
    cases: int
    """Distinct edge cases (fingerprints)."""
    occurrences: int
    """Episodes that hit them, counted per case."""


@dataclass(frozen=True, order=True)
class ArmTally:
    """Episodes one arm of the release served, by status."""

    route: str
    """`champion`, `canary`, or `none` for a policy that is not routed."""
    adapter_id: str
    """The adapter that served them (`base` for none)."""
    status: str
    """The projection's status (`running`, `completed`, `escalated`, `failed`, ...)."""
    episodes: int


def edge_cases_by_rule(engine: Engine) -> list[RuleTally]:
    """Every rule with findings, by name."""
    query = (
        sa.select(EDGE_CASES.c.rule, sa.func.count(), sa.func.sum(EDGE_CASES.c.count))
        .group_by(EDGE_CASES.c.rule)
        .order_by(EDGE_CASES.c.rule)
    )
    with engine.connect() as conn:
        return [RuleTally(rule, int(cases), int(hits or 0)) for rule, cases, hits in conn.execute(query)]


def episodes_by_arm(engine: Engine) -> list[ArmTally]:
    """Episodes by route, adapter and status."""
    e = EPISODES.c
    query = sa.select(e.policy_route, e.policy_adapter_id, e.status, sa.func.count()).group_by(
        e.policy_route, e.policy_adapter_id, e.status
    )
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return sorted(
        ArmTally(route or "none", adapter or "base", status or "unknown", int(n))
        for route, adapter, status, n in rows
    )


def archived_offsets(engine: Engine, topic: str) -> dict[int, int]:
    """Partition → the highest Kafka offset of `topic` the archive holds."""
    a = ARCHIVE_TABLE.c
    query = (
        sa.select(a.kafka_partition, sa.func.max(a.kafka_offset))
        .where(a.kafka_topic == topic, a.kafka_partition.is_not(None))
        .group_by(a.kafka_partition)
    )
    with engine.connect() as conn:
        return {int(p): int(o) for p, o in conn.execute(query) if o is not None}
