"""`loopline verifiers report`: the verifier card from a real (small) run, and the bars it enforces;
with an archive whose label store holds two reviewers' labels on the same trajectories, their kappa
is on the card and their labels count in the verifiers' agreement (one card build for both)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.store.labels import ExpertLabel, SqlLabelStore
from loopline.card.model import VerifierCard
from loopline.card.render import render
from loopline.cli import app
from schemas.events import VerifierScored
from schemas.verdicts import Verdict
from tests.bridge.store.builders import EpisodeBuilder

# rcm.v2 passes the first three archived episodes; Dana agrees with it on all six, Sam on four.
V2_PASSES = (True, True, True, False, False, False)
DANA = ("pass", "pass", "pass", "fail", "fail", "fail")
SAM = ("pass", "pass", "fail", "fail", "fail", "pass")


def _reviewed_archive(tmp_path: Path) -> str:
    """Six episodes rcm.v2 scored, each labelled by two reviewers (as review decisions are)."""
    url = f"sqlite:///{tmp_path / 'archive.db'}"
    archive = SqlEventArchive(url)
    archive.create_schema()
    labels = SqlLabelStore(url)
    labels.create_schema()
    for i, passed in enumerate(V2_PASSES):
        ep = EpisodeBuilder(f"ep-{i}")
        ep.started()
        ep.ended()
        verdict = Verdict(verifier="rcm.v2", score=1.0 if passed else 0.0, passed=passed)
        ep.events.append(ep.chain.append(VerifierScored(task_id=f"task-ep-{i}", verdict=verdict)))
        archive.append([ArchiveRecord.of(e) for e in ep.events])
        for reviewer, label in (("Dana Whitfield", DANA[i]), ("Sam Okafor", SAM[i])):
            labels.put(
                ExpertLabel(subject=f"ep-{i}", reviewer=reviewer, label=label, reason="read the ERA")  # type: ignore[arg-type]
            )
    return url


def test_the_card_reports_every_part_for_both_verifiers_and_exits_by_its_bars(tmp_path: Path) -> None:
    sizes = ["--per-carc", "1", "--per-kind", "1", "--queues", "2", "--workers", "2"]
    url = _reviewed_archive(tmp_path)
    result = CliRunner().invoke(app, ["verifiers", "report", "--json", *sizes, "--db-url", url])
    card = json.loads(result.stdout[result.stdout.index("{") :])
    assert result.exit_code == (1 if card["failing"] else 0)
    assert [v["name"] for v in card["validation"]] == ["rcm-base", "rcm-edge", "rcm-queue", "rcm-twins"]
    expert = {r["verifier"]: r for r in card["expert"]}
    assert set(expert) == {"rcm.v1", "rcm.v2"} and expert["rcm.v2"]["wrong_moves"] > 0
    mutation = {v["verifier"]: v["overall"] for v in card["mutation"]["verifiers"]}
    assert mutation["rcm.v2"]["outcome_changing"] > 0
    assert mutation["rcm.v2"]["score"] >= mutation["rcm.v1"]["score"]
    exploits = {v["verifier"]: v for v in card["exploits"]["verifiers"]}
    assert len(card["exploits"]["policies"]) >= 12 and set(exploits) == {"rcm.v1", "rcm.v2"}
    # rcm.v2's agreement row: the expert set's pairs, plus the 12 reviewers' labels of the archive.
    agreement = {a["agreement"]["verifier"]: a for a in card["agreement"]}
    assert agreement["rcm.v2"]["agreement"]["n"] == (
        expert["rcm.v2"]["golds"] + expert["rcm.v2"]["alternatives"] + expert["rcm.v2"]["wrong_moves"] + 12
    )
    stored = card["label_store"]
    assert [(r["reviewer"], r["labels"]) for r in stored["reviewers"]] == [
        ("Dana Whitfield", 6),
        ("Sam Okafor", 6),
    ]
    between = stored["between_reviewers"]
    # 4 of 6 agree (2/3), each passes half (1/2 by chance): kappa (2/3 - 1/2) / (1 - 1/2) = 1/3.
    assert between["n"] == 6 and abs(between["kappa"] - 1 / 3) < 1e-9
    [v2_alone] = [v for v in stored["verifiers"] if v["agreement"]["verifier"] == "rcm.v2"]
    assert v2_alone["agreement"]["n"] == 12 and v2_alone["agreement"]["accuracy"] == 10 / 12
    assert "2 reviewers, kappa between reviewers 0.33" in card["agreement_sources"]
    shown = io.StringIO()
    render(VerifierCard.model_validate(card), Console(file=shown, width=200))
    assert (
        "reviewers in the label store: Dana Whitfield (6), Sam Okafor (6); kappa between reviewers 0.333 "
        "over 6 pairs" in shown.getvalue()
    )
    bars = " ".join(card["failing"])
    if exploits["rcm.v2"]["fooled_tasks"]:
        assert "hackable" in bars
    rule = next(r for r in card["hackable"] if r["verifier"] == "rcm.v2")
    assert ("hackable by the rule" in bars) == bool(rule["above_nothing_untagged"])
    assert not card["open_bars"], "the hackable rule is enforced, not reported aside"
    if expert["rcm.v2"]["wrong_rejected"] < expert["rcm.v2"]["wrong_moves"]:
        assert "wrong moves pass" in bars
    twins = card["twins"]
    assert twins["sets"] and all(len(s["tasks"]) == 2 for s in twins["sets"])
    assert ("twin sets" in bars) == any(not s["golds_differ"] or s["passes_both"] for s in twins["sets"])
    for desk in card["blind"]["summaries"]:
        worst = desk["families"][0] if desk["families"] else None
        if worst and worst["passed"] / worst["tasks"] > 0.10:
            assert f"blind desk {desk['policy']} passes" in bars, "a desk past the family bar fails the card"
    assert {"ignoring:code_table", "ignoring:label_desk"} <= {d["policy"] for d in card["blind"]["summaries"]}
