"""The adapter registry on disk: `<state>/adapters/<id>/` holds the adapter, its lineage, its
evaluation and the verdict of the gate.

`evaluation.json` keeps the paired report, the rules and the verdict; `events.jsonl` gets one
`loopline.adapter.evaluated.v1` record per verdict (CloudEvents attributes, the verdict and its
evidence as data), so the decision travels with the adapter it is about.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemas.ids import new_id
from training.evaluate import EvalReport
from training.gate import GateRules, GateVerdict

EVALUATION = "evaluation.json"
EVENTS = "events.jsonl"
EVALUATED = "loopline.adapter.evaluated.v1"


def adapters_root(state: Path) -> Path:
    """Where adapters live."""
    return state / "adapters"


def adapter_folder(state: Path, ref: str) -> Path:
    """An adapter by folder path or by id in the registry; raises when it does not exist."""
    path = Path(ref)
    if not (path / "adapter_config.json").is_file():
        path = adapters_root(state) / ref
    if not (path / "adapter_config.json").is_file():
        raise FileNotFoundError(f"no adapter {ref!r} (neither a folder nor an id in {adapters_root(state)})")
    return path


def store_report(folder: Path, report: EvalReport) -> None:
    """Keep a fresh evaluation with the adapter (a verdict on an older one is dropped)."""
    (folder / EVALUATION).write_text(json.dumps({"report": report.model_dump(mode="json")}, indent=1) + "\n")


def read_evaluation(folder: Path) -> tuple[EvalReport, GateVerdict | None]:
    """The stored report and verdict (None when the gate has not judged it yet)."""
    path = folder / EVALUATION
    if not path.is_file():
        raise FileNotFoundError(f"{folder.name} has not been evaluated yet (no {EVALUATION})")
    data = json.loads(path.read_text())
    verdict = GateVerdict.model_validate(data["verdict"]) if data.get("verdict") else None
    return EvalReport.model_validate(data["report"]), verdict


def store_verdict(folder: Path, report: EvalReport, rules: GateRules, verdict: GateVerdict) -> dict[str, Any]:
    """Write the verdict next to its report and append the `adapter.evaluated` record; returns it."""
    (folder / EVALUATION).write_text(
        json.dumps(
            {
                "report": report.model_dump(mode="json"),
                "rules": rules.model_dump(mode="json"),
                "verdict": verdict.model_dump(mode="json"),
            },
            indent=1,
        )
        + "\n"
    )
    event = {
        "specversion": "1.0",
        "id": new_id(),
        "source": "loopline.training.gate",
        "type": EVALUATED,
        "subject": folder.name,
        "time": datetime.now(UTC).isoformat(),
        "datacontenttype": "application/json",
        "data": {
            "adapter_id": folder.name,
            "champion": report.champion,
            "passed": verdict.passed,
            "reasons": verdict.reasons,
            "checks": [c.model_dump(mode="json") for c in verdict.checks],
            "suites": {
                s.suite: {
                    "tasks": s.tasks,
                    "candidate": s.candidate,
                    "champion": s.champion,
                    "delta": s.delta,
                    "ci": [s.ci_low, s.ci_high],
                    "pass_to_fail": s.pass_to_fail,
                    "fail_to_pass": s.fail_to_pass,
                }
                for s in report.suites
            },
        },
    }
    with (folder / EVENTS).open("a") as out:
        out.write(json.dumps(event) + "\n")
    return event
