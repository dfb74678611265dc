"""The expert label store and the archived verdicts it is read with, on SQLite and Postgres."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from pydantic import ValidationError

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.store.labels import ExpertLabel, SqlLabelStore
from bridge.store.verdicts import SqlVerdictReader
from schemas.events import VerifierScored
from schemas.verdicts import Verdict
from tests.bridge.store.builders import T0, EpisodeBuilder, typical_episode

T1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def labels(archive: SqlEventArchive) -> SqlLabelStore:
    store = SqlLabelStore(archive.engine)
    store.create_schema()
    return store


@pytest.fixture
def verdicts(archive: SqlEventArchive) -> SqlVerdictReader:
    return SqlVerdictReader(archive.engine)


def _label(subject: str = "ep-1", reviewer: str = "ana", label: str = "pass", **extra: object) -> ExpertLabel:
    fields = {"reason": "appeal cites CO-197 and attaches the auth", "labelled_at": T1, **extra}
    return ExpertLabel.model_validate({"subject": subject, "reviewer": reviewer, "label": label, **fields})


def _scored(ep: EpisodeBuilder, verifier: str, score: float, *, task_id: str | None = "task-1") -> None:
    verdict = Verdict(verifier=verifier, score=score, passed=score == 1.0)
    ep.events.append(ep.chain.append(VerifierScored(task_id=task_id, verdict=verdict)))


def _episode(episode_id: str, start: datetime = T0, **scores: float) -> EpisodeBuilder:
    ep = EpisodeBuilder(episode_id, start=start)
    ep.started()
    ep.ended()
    for verifier, score in scores.items():
        _scored(ep, verifier.replace("_", "."), score)
    return ep


def _load(archive: SqlEventArchive, *builders: EpisodeBuilder) -> None:
    archive.append([ArchiveRecord.of(e) for b in builders for e in b.events])


def test_a_label_is_stored_and_read_back_as_given(labels: SqlLabelStore) -> None:
    label = _label(task_id="task-9", verifier="rcm.v2", source="expert_set")
    assert labels.put(label) is False
    assert labels.get("ep-1", "ana") == label
    assert labels.list_labels() == [label]
    assert labels.get("ep-1", "bo") is None


def test_relabelling_replaces_the_reviewers_label_and_keeps_other_reviewers(labels: SqlLabelStore) -> None:
    labels.put(_label(reviewer="ana"))
    labels.put(_label(reviewer="bo", label="fail"))
    later = _label(
        reviewer="ana", label="fail", reason="the appeal is boilerplate", labelled_at=T1 + timedelta(1)
    )
    assert labels.put(later) is True
    assert labels.count() == 2
    assert labels.get("ep-1", "ana") == later
    assert [(x.reviewer, x.label) for x in labels.list_labels()] == [("bo", "fail"), ("ana", "fail")]


def test_labels_are_filtered_and_paged(labels: SqlLabelStore) -> None:
    for i in range(5):
        labels.put(
            _label(f"ep-{i}", labelled_at=T1 + timedelta(minutes=i), verifier="rcm.v2" if i % 2 else None)
        )
    assert [x.subject for x in labels.list_labels(verifier="rcm.v2")] == ["ep-1", "ep-3"]
    assert [x.subject for x in labels.list_labels(limit=2, offset=1)] == ["ep-1", "ep-2"]
    assert labels.list_labels(source="expert_set") == []
    with pytest.raises(ValueError, match="limit"):
        labels.list_labels(limit=0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"reason": "   "}, "not be blank"),
        ({"reason": ""}, "at least 1"),
        ({"label": "maybe"}, "'pass' or 'fail'"),
        ({"subject": "ep 1; drop"}, "pattern"),
        ({"source": "crowd"}, "'reviewer' or 'expert_set'"),
        ({"reviewer": ""}, "at least 1"),
    ],
)
def test_a_label_without_a_reason_or_with_a_bad_field_is_refused_clearly(
    change: dict[str, str], message: str
) -> None:
    fields = {"subject": "ep-1", "reviewer": "ana", "label": "pass", "reason": "fine", **change}
    with pytest.raises(ValidationError, match=message):
        ExpertLabel.model_validate(fields)


def test_a_naive_labelled_at_reads_as_utc_on_every_engine(labels: SqlLabelStore) -> None:
    labels.put(_label(labelled_at=datetime(2026, 3, 2, 9, 0)))
    stored = labels.get("ep-1", "ana")
    assert stored is not None and stored.labelled_at == T1


def test_the_label_table_lives_beside_the_archive_and_creating_it_twice_is_harmless(
    archive: SqlEventArchive, labels: SqlLabelStore
) -> None:
    labels.create_schema()
    assert {"event_archive", "verifier_labels"} <= set(sa.inspect(archive.engine).get_table_names())


def test_the_latest_verdict_of_each_verifier_stands_for_it(
    archive: SqlEventArchive, verdicts: SqlVerdictReader
) -> None:
    ep = _episode("ep-1", rcm_v1=1.0, rcm_v2=0.5)
    _scored(ep, "rcm.v2", 1.0)  # rescored
    _load(archive, ep, _episode("ep-2"))
    found = verdicts.verdicts(["ep-1", "ep-2", "ep-1", "nope"])
    assert list(found) == ["ep-1"]
    assert [(v.verifier, v.score, v.passed, v.task_id) for v in found["ep-1"]] == [
        ("rcm.v1", 1.0, True, "task-1"),
        ("rcm.v2", 1.0, True, "task-1"),
    ]


def test_the_queue_offers_scored_unlabelled_episodes_oldest_first(
    archive: SqlEventArchive, labels: SqlLabelStore, verdicts: SqlVerdictReader
) -> None:
    hour = timedelta(hours=1)
    _load(
        archive,
        _episode("ep-c", T0, rcm_v2=1.0),
        _episode("ep-a", T0 + hour, rcm_v2=0.0, rcm_v1=0.0),
        _episode("ep-b", T0 + 2 * hour, rcm_v2=0.5),
        _episode("ep-unscored", T0),
    )
    queue = verdicts.label_queue()
    assert [c.episode_id for c in queue] == ["ep-c", "ep-a", "ep-b"]
    assert queue[1].verifiers == ["rcm.v1", "rcm.v2"] and queue[1].task_id == "task-1"
    labels.put(_label("ep-c", reviewer="ana"))
    assert [c.episode_id for c in verdicts.label_queue(limit=1)] == ["ep-a"]
    assert [c.episode_id for c in verdicts.label_queue(reviewer="bo")] == ["ep-c", "ep-a", "ep-b"]
    assert [c.episode_id for c in verdicts.label_queue(reviewer="ana")] == ["ep-a", "ep-b"]


def test_a_random_queue_is_the_same_sample_for_the_same_seed(
    archive: SqlEventArchive, labels: SqlLabelStore, verdicts: SqlVerdictReader
) -> None:
    _load(archive, *(_episode(f"ep-{i:02}", rcm_v2=1.0) for i in range(30)))
    first = [c.episode_id for c in verdicts.label_queue(order="random", seed=7, limit=10)]
    again = [c.episode_id for c in verdicts.label_queue(order="random", seed=7, limit=10)]
    other = [c.episode_id for c in verdicts.label_queue(order="random", seed=8, limit=10)]
    assert first == again and len(set(first)) == 10 and first != other
    assert len(verdicts.label_queue(order="random", limit=100)) == 30


def test_scored_episodes_come_with_their_outcome_kinds_in_stream_order(
    archive: SqlEventArchive, verdicts: SqlVerdictReader
) -> None:
    appealed = _episode("ep-1", rcm_v2=1.0)
    appealed.outcome("denied", amount="0.00")
    appealed.outcome("appeal_won")
    _load(archive, appealed, typical_episode("ep-2"), _episode("ep-3", rcm_v2=0.0))
    [found] = verdicts.scored_with_outcomes()
    assert found.episode_id == "ep-1" and found.outcome_kinds == ["denied", "appeal_won"]
    assert [(v.verifier, v.score) for v in found.verdicts] == [("rcm.v2", 1.0)]
