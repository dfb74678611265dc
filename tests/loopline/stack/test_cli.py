"""The stack commands without servers: exit codes and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from loopline.cli import app


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("LOOPLINE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


def test_status_of_nothing_says_stopped_and_exits_3(runner: CliRunner) -> None:
    result = runner.invoke(app, ["status"])

    assert result.exit_code == 3
    assert "stopped" in result.output and "loopline up" in result.output


def test_down_with_nothing_running_is_fine(runner: CliRunner) -> None:
    result = runner.invoke(app, ["down"])

    assert result.exit_code == 0 and "nothing to stop" in result.output


def test_logs_of_an_unknown_component_is_a_one_line_error(runner: CliRunner) -> None:
    result = runner.invoke(app, ["logs", "kafka"])

    assert result.exit_code == 1
    assert "unknown component 'kafka'" in result.output and "Traceback" not in result.output


def test_logs_show_the_last_lines_of_each_component(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "tansu.log").write_text("one\ntwo\nthree\n")
    (tmp_path / "logs" / "temporal.log").write_text("ready\n")

    both = runner.invoke(app, ["logs", "-n", "2"])
    one = runner.invoke(app, ["logs", "tansu", "-n", "1"])

    assert both.exit_code == 0 and "tansu | two" in both.output and "temporal | ready" in both.output
    assert one.output == "three\n"


def test_invalid_settings_are_one_line_that_names_the_setting(runner: CliRunner) -> None:
    result = runner.invoke(app, ["up", "--broker-storage", "disk"])

    assert result.exit_code == 1
    assert "broker_storage" in result.output and "Traceback" not in result.output


def test_up_with_an_unknown_sql_engine_is_a_one_line_error(runner: CliRunner) -> None:
    result = runner.invoke(app, ["up", "--sql", "mysql"])

    assert result.exit_code == 1
    assert "sql" in result.output and "postgres" in result.output and "Traceback" not in result.output
