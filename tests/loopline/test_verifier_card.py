"""`loopline verifiers report`: the verifier card from a real (small) run, and the bars it enforces."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from loopline.cli import app


def test_the_card_reports_every_part_for_both_verifiers_and_exits_by_its_bars() -> None:
    result = CliRunner().invoke(
        app,
        [
            "verifiers",
            "report",
            "--json",
            "--per-carc",
            "1",
            "--per-kind",
            "1",
            "--queues",
            "2",
            "--workers",
            "1",
        ],
    )
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
    agreement = {a["agreement"]["verifier"]: a for a in card["agreement"]}
    assert (
        agreement["rcm.v2"]["agreement"]["n"]
        == expert["rcm.v2"]["golds"] + expert["rcm.v2"]["alternatives"] + expert["rcm.v2"]["wrong_moves"]
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
