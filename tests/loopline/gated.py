"""An adapter folder the gate has judged, its verdict on the adapter's stream in the registry the
release commands open (`--state`, `--db-url`), as `loopline train gate` leaves it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from loopline.cli import app as cli
from loopline.release.registry import open_registry
from training.evaluate import EvalReport
from training.gate import GateRules, GateVerdict
from training.registry import store_verdict
from training.release.store import SqlReleaseStore


def safetensors_bytes(label: str) -> bytes:
    """A whole safetensors file with one small tensor, distinct per `label`."""
    data = label.encode().ljust(8, b"\0")[:8]
    header = json.dumps(
        {"__metadata__": {"label": label}, "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    ).encode()
    return len(header).to_bytes(8, "little") + header + data


def gated_adapter(
    state: Path, name: str, *, passed: bool = True, reasons: tuple[str, ...] = (), db_url: str | None = None
) -> Path:
    folder = state / "adapters" / name
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text(json.dumps({"r": 4}))
    (folder / "adapter_model.safetensors").write_bytes(safetensors_bytes(name))
    report = EvalReport(candidate=name, champion="base", seeds=[0], suites=[])
    verdict = GateVerdict(passed=passed, checks=[], reasons=list(reasons))
    store_verdict(folder, report, GateRules(), verdict, open_registry(state, db_url))
    return folder


def live_canary(
    state: Path, release_url: str, name: str
) -> tuple[SqlReleaseStore, Callable[[str], str | None]]:
    """A gated adapter `name`, registered as `rcm-<name>` and deployed as a 50% canary through the
    release commands; the store and the fingerprint lookup a policy server's `registered` takes."""
    gated_adapter(state, name, db_url=release_url)
    for args in (["register", name, "--served-name", f"rcm-{name}"], ["canary", name, "--share", "0.5"]):
        done = CliRunner().invoke(cli, ["adapters", *args, "--state", str(state), "--db-url", release_url])
        assert done.exit_code == 0, done.output
    store = SqlReleaseStore(release_url)

    def registered(served: str) -> str | None:
        record = store.by_served_name(served)
        return record.fingerprint if record else None

    return store, registered
