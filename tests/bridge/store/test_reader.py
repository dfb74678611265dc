"""The read API the HTTP API and `loopline inspect` use, on SQLite and Postgres."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive
from schemas import EpisodeChain
from schemas.events import EdgeCaseDetected
from tests.bridge.store.builders import T0, EpisodeBuilder, typical_episode


def _load(archive: SqlEventArchive, *builders: EpisodeBuilder) -> None:
    archive.append([ArchiveRecord.of(e) for b in builders for e in b.events])


def test_episodes_are_listed_newest_first_and_scoped_by_tenant(
    archive: SqlEventArchive, reader: SqlEpisodeReader
) -> None:
    from datetime import timedelta

    early = typical_episode("ep-a")
    late = EpisodeBuilder("ep-b", tenant="fund", start=T0 + timedelta(hours=1))
    late.started()
    _load(archive, early, late)
    assert [e.episode_id for e in reader.list_episodes()] == ["ep-b", "ep-a"]
    assert [e.episode_id for e in reader.list_episodes(tenant="acme")] == ["ep-a"]
    assert [e.episode_id for e in reader.list_episodes(status="running")] == ["ep-b"]
    assert [e.episode_id for e in reader.list_episodes(limit=1, offset=1)] == ["ep-a"]
    with pytest.raises(ValueError, match="limit"):
        reader.list_episodes(limit=0)


def test_an_episode_comes_with_its_calls_and_outcomes_but_not_to_another_tenant(
    archive: SqlEventArchive, reader: SqlEpisodeReader
) -> None:
    _load(archive, typical_episode("ep-1"))
    detail = reader.get_episode("ep-1")
    assert detail is not None
    assert detail.episode.started_at == T0
    assert [(c.tool, c.outcome, c.arguments) for c in detail.tool_calls] == [
        ("get_claim", "ok", {"claim_id": "CLM-1"}),
        ("submit_appeal", "failed", {"claim_id": "CLM-1"}),
    ]
    assert [(o.kind, o.amount) for o in detail.outcomes] == [("paid", Decimal("120.50"))]
    assert reader.get_episode("ep-1", tenant="other") is None
    assert reader.get_episode("nope") is None


def test_the_events_of_an_episode_come_in_seq_order_as_stored(
    archive: SqlEventArchive, reader: SqlEpisodeReader
) -> None:
    ep = typical_episode("ep-1")
    archive.append([ArchiveRecord.of(e) for e in reversed(ep.events)])
    stored = reader.episode_events("ep-1")
    assert [s.seq for s in stored] == list(range(len(ep.events)))
    assert [s.structured for s in stored] == [e.model_dump(mode="json") for e in ep.events]
    assert reader.episode_events("ep-1", tenant="other") == []


def test_edge_cases_and_tool_error_rates_are_readable(
    archive: SqlEventArchive, reader: SqlEpisodeReader
) -> None:
    _load(archive, typical_episode("ep-1"))
    chain = EpisodeChain("edgecase:abc", tenant="acme", source="loopline://test/detect", clock=lambda: T0)
    data = EdgeCaseDetected(
        fingerprint="abc",
        rule="tool_failure.http_5xx",
        severity="medium",
        summary="submit_appeal answered 503",
        source_episode_id="ep-1",
        evidence={"status_code": 503},
    )
    archive.append([ArchiveRecord.of(chain.append(data)), ArchiveRecord.of(chain.append(data))])
    (case,) = reader.list_edge_cases(rule="tool_failure.http_5xx")
    assert (case.fingerprint, case.count, case.episode_id, case.evidence) == (
        "abc",
        2,
        "ep-1",
        {"status_code": 503},
    )
    assert reader.get_edge_case("abc") == case
    assert reader.list_edge_cases(tenant="other") == []
    rates = {r.tool: r for r in reader.tool_error_rates()}
    assert rates["submit_appeal"].failure_rate == 1.0 and rates["get_claim"].failure_rate == 0.0
