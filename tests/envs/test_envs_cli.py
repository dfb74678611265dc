"""`loopline envs ...` on the toy domain: tables, exit codes, published versions, event files."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import envs.toy as toy
from envs.tasksets import dump_jsonl
from loopline.commands.envs import app
from schemas.codec import from_json

runner = CliRunner()


def test_validate_passes_on_a_valid_set_and_prints_the_table() -> None:
    result = runner.invoke(app, ["validate", "-t", "toy", "--by", "kind"])
    assert result.exit_code == 0, result.output
    assert (
        "gold validation" in result.output
        and "escalate" in result.output
        and "every gold solution" in result.output
    )


def test_validate_exits_non_zero_and_names_a_broken_task(tmp_path: Path) -> None:
    tasks = toy.make_tasks(4, seed=1)
    broken = tasks[0].model_copy(update={"gold_solution": tasks[0].gold_solution[1:]})  # acts before reading
    path = tmp_path / "tasks.jsonl"
    path.write_text(dump_jsonl([broken, *tasks[1:]]))
    result = runner.invoke(app, ["validate", "-t", str(path), "--by", "kind"])
    assert result.exit_code == 1
    assert broken.task_id in result.output and "1 task(s) failed" in result.output


def test_validate_fails_an_rcm_task_whose_remittance_pyx12_rejects(tmp_path: Path) -> None:
    from envs.rcm.tasks import generate_base

    task = generate_base(0, per_carc=1)[0]
    world = task.initial_world
    remits = {k: {**r, "claim_filing_indicator": "CI"} for k, r in world["remittances"].items()}
    broken = task.model_copy(update={"initial_world": {**world, "remittances": remits}})
    path = tmp_path / "tasks.jsonl"
    path.write_text(dump_jsonl([broken]))
    result = runner.invoke(app, ["validate", "-t", str(path)])
    assert result.exit_code == 1
    assert task.task_id in result.output and "CLP06" in result.output


def test_an_unknown_task_set_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", "-t", "nope", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "cannot load nope" in result.output


def test_generate_publishes_a_new_version_each_time_and_validate_loads_it(tmp_path: Path) -> None:
    for version in (1, 2):
        result = runner.invoke(app, ["generate", "-t", "toy", "--root", str(tmp_path)])
        assert result.exit_code == 0 and f"v{version}" in result.output
    result = runner.invoke(app, ["validate", "-t", "toy@1", "--root", str(tmp_path), "--by", "kind"])
    assert result.exit_code == 0 and "toy@1" in result.output


def test_rollout_records_events_and_prints_pass_rates(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    result = runner.invoke(
        app, ["rollout", "-p", "reference", "-t", "toy", "--by", "kind", "--events", str(events)]
    )
    assert result.exit_code == 0, result.output
    assert "100.0%" in result.output and "pass rate" in result.output
    decoded = [from_json(line) for line in events.read_bytes().splitlines()]
    assert sum(e.type == "loopline.episode.started.v2" for e in decoded) == 24


def test_rollout_refuses_a_policy_the_domain_lacks() -> None:
    result = runner.invoke(app, ["rollout", "-p", "always_appeal", "-t", "toy"])
    assert result.exit_code == 2 and "no policy 'always_appeal'" in result.output
