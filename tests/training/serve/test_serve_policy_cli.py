"""`loopline serve-policy` refuses to start an open server: both keys are required, and distinct."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from loopline.cli import app


def test_serve_policy_refuses_to_start_without_both_keys(tiny_structured: Path, tmp_path: Path) -> None:
    base = ["serve-policy", "--base-model", str(tiny_structured), "--state", str(tmp_path)]
    env = {"LOOPLINE_POLICY_API_KEY": "", "LOOPLINE_POLICY_RELEASE_KEY": ""}
    for extra in ([], ["--api-key", "serving-key-0123456789"], ["--release-key", "release-key-0123456789"]):
        result = CliRunner().invoke(app, [*base, *extra], env=env)
        assert result.exit_code == 2, result.output
        assert "needs --api-key and --release-key" in result.output
    same = ["--api-key", "same-key-0123456789", "--release-key", "same-key-0123456789"]
    result = CliRunner().invoke(app, [*base, *same], env=env)
    assert result.exit_code == 2 and "must differ" in result.output


def test_serve_policy_prints_the_vllm_line_without_keys(tiny_structured: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["serve-policy", "--vllm", "--base-model", str(tiny_structured), "--state", str(tmp_path)]
    )
    assert result.exit_code == 0 and "vllm serve" in result.output


def test_the_policy_gate_refuses_to_start_without_both_keys_and_the_upstream_key(tmp_path: Path) -> None:
    base = ["policy-gate", "--state", str(tmp_path), "--copy-root", str(tmp_path / "copies")]
    env = {
        "LOOPLINE_POLICY_API_KEY": "",
        "LOOPLINE_POLICY_RELEASE_KEY": "",
        "LOOPLINE_POLICY_UPSTREAM_KEY": "",
    }
    result = CliRunner().invoke(app, [*base, "--api-key", "serving-key-0123456789"], env=env)
    assert result.exit_code == 2 and "needs --api-key and --release-key" in result.output
    keys = ["--api-key", "serving-key-0123456789", "--release-key", "release-key-0123456789"]
    result = CliRunner().invoke(app, [*base, *keys], env=env)
    assert result.exit_code == 2 and "needs --upstream-key" in result.output
