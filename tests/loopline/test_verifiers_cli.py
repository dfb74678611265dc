"""`loopline verifiers label|agreement|outcomes` on a real SQLite archive."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.store.labels import ExpertLabel, SqlLabelStore
from loopline.card.agreement import NO_OUTCOMES, archived_agreement, archived_outcomes
from loopline.cli import app
from schemas.events import VerifierScored
from schemas.verdicts import Verdict
from tests.bridge.store.builders import EpisodeBuilder


def _episode(
    archive: SqlEventArchive, episode_id: str, scores: dict[str, float], outcomes: tuple[str, ...] = ()
) -> None:
    ep = EpisodeBuilder(episode_id)
    ep.started()
    ep.ended()
    for verifier, score in scores.items():
        verdict = Verdict(verifier=verifier, score=score, passed=score == 1.0)
        ep.events.append(ep.chain.append(VerifierScored(task_id=f"task-{episode_id}", verdict=verdict)))
    for kind in outcomes:
        ep.outcome(kind)
    archive.append([ArchiveRecord.of(e) for e in ep.events])


def _archive(tmp_path: Path) -> tuple[str, SqlEventArchive]:
    url = f"sqlite:///{tmp_path}/archive.db"
    archive = SqlEventArchive(url)
    archive.create_schema()
    return url, archive


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["verifiers", *args])


def _label(url: str, episode: str, verdict: str, reviewer: str = "ana") -> Any:
    return _run(
        "label", episode, verdict, "--reason", "checked the appeal", "--reviewer", reviewer, "--db-url", url
    )


def test_a_reviewer_labels_an_episode_and_relabels_it(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    _episode(archive, "ep-1", {"rcm.v2": 1.0})
    first = _label(url, "ep-1", "--pass")
    assert first.exit_code == 0, first.output
    assert "labelled ep-1 pass by ana" in first.output
    second = _label(url, "ep-1", "--fail")
    assert second.exit_code == 0 and "relabelled ep-1 fail" in second.output
    [stored] = SqlLabelStore(url).list_labels()
    assert (stored.label, stored.task_id, stored.source) == ("fail", "task-ep-1", "reviewer")


def test_labelling_refuses_an_unknown_episode_a_blank_reason_and_a_missing_archive(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    _episode(archive, "ep-1", {"rcm.v2": 1.0})
    unknown = _label(url, "nope", "--pass")
    assert unknown.exit_code == 1 and "no episode 'nope'" in unknown.output
    blank = _run("label", "ep-1", "--pass", "--reason", "  ", "--reviewer", "ana", "--db-url", url)
    assert blank.exit_code == 2 and "not be blank" in blank.output
    missing = _label(f"sqlite:///{tmp_path}/elsewhere.db", "ep-1", "--pass")
    assert missing.exit_code == 1 and "no event archive" in missing.output
    assert _run("agreement", "--db-url", "mysql://x").exit_code == 2


def test_agreement_reports_each_verifier_and_gates_it(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    # rcm.v2 agrees with every label; rcm.v1 passes the wrong move on ep-4.
    _episode(archive, "ep-1", {"rcm.v1": 1.0, "rcm.v2": 1.0})
    _episode(archive, "ep-2", {"rcm.v1": 1.0, "rcm.v2": 1.0})
    _episode(archive, "ep-3", {"rcm.v1": 0.0, "rcm.v2": 0.0})
    _episode(archive, "ep-4", {"rcm.v1": 1.0, "rcm.v2": 0.5})
    _episode(archive, "ep-unlabelled", {"rcm.v2": 1.0})
    for episode, verdict in (("ep-1", "--pass"), ("ep-2", "--pass"), ("ep-3", "--fail"), ("ep-4", "--fail")):
        assert _label(url, episode, verdict).exit_code == 0
    SqlLabelStore(url).put(
        ExpertLabel(subject="case-07", reviewer="brief", label="pass", reason="gold", source="expert_set")
    )
    result = _run("agreement", "--json", "--db-url", url, "--min-labels", "4")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["labels"], report["unscored_labels"]) == (5, 1)
    by_name = {s["agreement"]["verifier"]: s for s in report["verifiers"]}
    assert by_name["rcm.v2"]["agreement"]["kappa"] == 1.0 and by_name["rcm.v2"]["fitness"]["fit"]
    assert by_name["rcm.v1"]["agreement"]["false_pass_rate"] == 0.5
    assert not by_name["rcm.v1"]["fitness"]["fit"] and "below 0.8" in by_name["rcm.v1"]["fitness"]["reason"]
    table = _run("agreement", "--db-url", url)
    assert table.exit_code == 0 and "not fit" in table.output and "fewer than the 50" in table.output
    only_expert_set = archived_agreement(url, source="expert_set")
    assert (only_expert_set.labels, only_expert_set.verifiers) == (1, [])


def test_outcomes_say_honestly_when_no_scored_episode_has_one(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    _episode(archive, "ep-1", {"rcm.v2": 1.0})
    result = _run("outcomes", "--db-url", url)
    assert result.exit_code == 0 and NO_OUTCOMES in result.output
    report = json.loads(_run("outcomes", "--json", "--db-url", url).output)
    assert report["episodes"] == 0 and report["verifiers"] == [] and report["note"] == NO_OUTCOMES


def test_outcomes_correlate_scores_with_what_the_payer_did_later(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    _episode(archive, "ep-paid", {"rcm.v2": 1.0}, ("paid",))
    _episode(archive, "ep-won", {"rcm.v2": 0.75}, ("denied", "appeal_won"))
    _episode(archive, "ep-denied", {"rcm.v2": 0.5}, ("denied",))
    _episode(archive, "ep-pended", {"rcm.v2": 0.0}, ("pended",))
    _episode(archive, "ep-unscored", {}, ("paid",))
    report = archived_outcomes(url)
    assert (report.episodes, report.unknown_truth, report.note) == (4, 1, None)
    [v2] = report.verifiers
    assert (v2.n, v2.good, v2.bad, v2.auc) == (3, 2, 1, 1.0)
    assert v2.agreement.confusion.false_fail == 1  # ep-won: 0.75 failed, the payer paid on appeal
    table = _run("outcomes", "--db-url", url)
    assert table.exit_code == 0 and "rcm.v2" in table.output and "1.000" in table.output


def test_outcomes_of_no_known_kind_are_reported_as_such(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    _episode(archive, "ep-1", {"rcm.v2": 1.0}, ("pended",))
    report = archived_outcomes(url)
    assert report.verifiers == [] and report.note is not None and "neither good nor bad" in report.note
