"""`loopline sandbox snapshot --domain credit` writes the deal system's seed world; an unknown domain
is refused with a reason."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from adapters.credit.sandbox import seed_world
from adapters.credit.world import World
from loopline.cli import app


def test_the_credit_seed_world_snapshot_loads_back_as_the_seed_world(tmp_path: Path) -> None:
    out = tmp_path / "credit.json"
    result = CliRunner().invoke(app, ["sandbox", "snapshot", "--domain", "credit", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert World.model_validate_json(out.read_text()) == seed_world()


def test_serving_an_unknown_domain_is_refused() -> None:
    result = CliRunner().invoke(app, ["sandbox", "serve", "--domain", "payroll", "--port", "1"])
    assert result.exit_code == 2
    assert "no sandbox for domain 'payroll'" in result.output


def test_a_snapshot_of_an_unknown_domain_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "payroll.json"
    result = CliRunner().invoke(app, ["sandbox", "snapshot", "--domain", "payroll", "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()
