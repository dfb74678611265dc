"""The detector's I/O: deduplicated, chained edge-case events that survive restarts and races."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bridge.detect import Deduplicator, DetectConfig, EdgeCaseDetector, Rejected
from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive, audit_archive
from bridge.streams.emitter import STREAM_PREFIX, EdgeCaseEmitter
from schemas.events import EdgeCaseDetected
from schemas.tools import SideEffect
from tests.bridge.store.builders import EpisodeBuilder, typical_episode


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _emitter(archive: SqlEventArchive, clock: Clock) -> EdgeCaseEmitter:
    return EdgeCaseEmitter(
        archive, EdgeCaseDetector(DetectConfig()), Deduplicator(timedelta(hours=1), clock=clock),
        source="loopline://test/detect", clock=clock,
    )  # fmt: skip


def _five_oh_three(episode: str) -> EpisodeBuilder:
    ep = EpisodeBuilder(episode)
    call = ep.call("submit_appeal", side_effect=SideEffect.WRITE)
    ep.failed(call, "submit_appeal", status_code=503)
    return ep


def test_a_case_is_reported_once_per_window_even_across_a_restart(archive: SqlEventArchive) -> None:
    clock = Clock()
    first = _emitter(archive, clock)
    (report,) = first.record(first.on_event(_five_oh_three("ep-1").events[-1]))
    assert first.on_event(_five_oh_three("ep-2").events[-1]) == []
    restarted = _emitter(archive, clock)  # fresh memory: the store must remember
    clock.now += timedelta(minutes=30)
    assert restarted.on_event(_five_oh_three("ep-3").events[-1]) == []
    clock.now += timedelta(minutes=31)
    (again,) = restarted.record(restarted.on_event(_five_oh_three("ep-4").events[-1]))
    assert isinstance(report.data, EdgeCaseDetected) and isinstance(again.data, EdgeCaseDetected)
    assert report.episodeid == again.episodeid == STREAM_PREFIX + report.data.fingerprint
    assert (report.seq, again.seq, again.prevhash) == (0, 1, report.hash)
    assert again.data.source_episode_id == "ep-4"
    (case,) = SqlEpisodeReader(archive.engine).list_edge_cases()
    assert (case.count, case.episode_id, case.last_episode_id) == (2, "ep-1", "ep-4")
    assert audit_archive(archive).ok


def test_two_detectors_racing_on_one_case_never_fork_its_stream(archive: SqlEventArchive) -> None:
    clock = Clock()
    a, b = _emitter(archive, clock), _emitter(archive, clock)
    (report,) = a.record(a.on_event(_five_oh_three("ep-1").events[-1]))
    # b read the stream's tip just before a committed, and its window lets it report: the worst case
    b.dedup = Deduplicator(timedelta(0), clock=clock)
    b.archive = SqlEventArchive(archive.engine)
    b.archive.stream_tip = lambda stream: (0, "0" * 64)  # type: ignore[method-assign]
    (late,) = b.on_event(_five_oh_three("ep-2").events[-1])
    assert late.seq == report.seq and b.record([late]) == []  # refused: the projector refuses it too
    assert audit_archive(archive).ok
    assert SqlEpisodeReader(archive.engine).get_edge_case(report.data.fingerprint).count == 1  # type: ignore[union-attr, attr-defined]


def test_an_adverse_outcome_is_judged_against_the_projected_episode(archive: SqlEventArchive) -> None:
    ep = EpisodeBuilder("ep-1")
    ep.started()
    call = ep.call("submit_corrected_claim", side_effect=SideEffect.WRITE)
    ep.returned(call, "submit_corrected_claim", {"accepted": True})
    ep.ended("completed")
    archive.append([ArchiveRecord.of(e) for e in ep.events])
    emitter = _emitter(archive, Clock())
    (report,) = emitter.on_event(ep.outcome("denied", reason_codes=("CO-16",)))
    assert isinstance(report.data, EdgeCaseDetected)
    assert (report.data.rule, report.data.evidence["ok_writes"]) == (
        "outcome_contradiction",
        ["submit_corrected_claim"],
    )


def test_a_dead_letter_becomes_a_schema_violation_report(archive: SqlEventArchive) -> None:
    emitter = _emitter(archive, Clock())
    (report,) = emitter.on_rejected(
        Rejected("hash_mismatch", "hash differs", "loopline.events.v1", tenant="acme")
    )
    assert isinstance(report.data, EdgeCaseDetected) and report.data.rule == "schema_violation.dead_letter"
    assert report.tenant == "acme"


def test_the_episode_context_lists_only_writes_that_succeeded(archive: SqlEventArchive) -> None:
    archive.append([ArchiveRecord.of(e) for e in typical_episode("ep-1").events])
    context = _emitter(archive, Clock()).episode_context("ep-1")
    assert context is not None and (context.status, context.ok_writes) == ("escalated", ())
    assert _emitter(archive, Clock()).episode_context("nope") is None


def test_reports_are_archived_only_when_recorded_after_their_publish(archive: SqlEventArchive) -> None:
    emitter = _emitter(archive, Clock())
    (report,) = emitter.on_event(_five_oh_three("ep-1").events[-1])
    assert archive.count() == 0  # built, not yet published: nothing recorded
    assert emitter.record([report]) == [report]
    assert archive.count() == 1 and audit_archive(archive).ok


def test_a_report_whose_publish_failed_is_reported_again_by_the_retried_batch(
    archive: SqlEventArchive,
) -> None:
    emitter = _emitter(archive, Clock())
    emitter.begin("events")
    (lost,) = emitter.on_event(_five_oh_three("ep-1").events[-1])  # its publish fails: never recorded
    emitter.begin("events")  # the batch is retried
    (again,) = emitter.on_event(_five_oh_three("ep-1").events[-1])
    assert (again.episodeid, again.seq) == (lost.episodeid, lost.seq)
    assert emitter.record([again]) == [again]


def test_two_reports_of_one_case_in_a_batch_chain_one_after_the_other(archive: SqlEventArchive) -> None:
    clock = Clock()
    emitter = _emitter(archive, clock)
    emitter.dedup = Deduplicator(timedelta(0), clock=clock)
    (first,) = emitter.on_event(_five_oh_three("ep-1").events[-1])
    (second,) = emitter.on_event(_five_oh_three("ep-2").events[-1])
    assert (second.seq, second.prevhash) == (first.seq + 1, first.hash)
    assert emitter.record([first, second]) == [first, second]
    assert audit_archive(archive).ok
