"""The adapter registry: `<state>/adapters/<id>/` holds an adapter's files (weights, lineage, the
paired evaluation and the gate's verdict); its event stream `adapter:<id>` lives in one place, the
release store (`training.release`), beside its release record.

`evaluation.json` keeps the paired report, the rules and the verdict. Each verdict also appends one
`loopline.adapter.evaluated.v1` to the adapter's stream, so the gate's decision, the registration,
the canary and its outcome form one hash chain (a second stream of the same name would fork it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from schemas.codec import from_structured
from schemas.envelope import Event
from schemas.events import AdapterEvaluated, AdapterTrained
from schemas.gate import SuiteEvidence, VerifierCardEvidence
from schemas.lora import AdapterMeta
from schemas.registry import EventData
from training.evaluate import EvalReport
from training.gate import GateRules, GateVerdict
from training.lora import read_lineage

EVALUATION = "evaluation.json"
EVALUATED = AdapterEvaluated.TYPE


class AdapterStreams(Protocol):
    """Where adapter streams are kept (`training.release.manager.ReleaseManager`)."""

    def append(self, adapter_id: str, events: Sequence[EventData]) -> list[dict[str, Any]]:
        """Seal `events` onto `adapter:<adapter_id>` and store them; the stored documents."""
        ...

    def events(self, adapter_id: str | None = None) -> list[dict[str, Any]]:
        """An adapter's stored events (CloudEvents structured JSON), in order."""
        ...


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


def store_verdict(
    folder: Path,
    report: EvalReport,
    rules: GateRules,
    verdict: GateVerdict,
    streams: AdapterStreams,
    *,
    adapter_id: str | None = None,
) -> Event:
    """Append the `adapter.evaluated` event to the adapter's stream, then keep the verdict next to
    its report (a retry after a crash between the two repeats the event rather than losing it)."""
    adapter_id = adapter_id or folder.name
    data = AdapterEvaluated(
        adapter_id=adapter_id,
        champion=report.champion,
        passed=verdict.passed,
        reasons=tuple(verdict.reasons),
        checks=tuple(verdict.checks),
        suites=tuple(
            SuiteEvidence(
                suite=s.suite,
                tasks=s.tasks,
                candidate=s.candidate,
                champion=s.champion,
                delta=s.delta,
                ci_low=s.ci_low,
                ci_high=s.ci_high,
                pass_to_fail=s.pass_to_fail,
                fail_to_pass=s.fail_to_pass,
            )
            for s in report.suites
        ),
        verifier_cards=tuple(verdict.verifier_cards),
    )
    (doc,) = streams.append(adapter_id, [data])
    document = {
        "report": report.model_dump(mode="json"),
        "rules": rules.model_dump(mode="json"),
        "verdict": verdict.model_dump(mode="json"),
    }
    (folder / EVALUATION).write_text(json.dumps(document, indent=1) + "\n")
    return from_structured(doc)


def read_events(streams: AdapterStreams, adapter_id: str) -> list[Event]:
    """The adapter's stream, each event validated (and upcast) against the registered schemas."""
    return [from_structured(doc) for doc in streams.events(adapter_id)]


def champion_cards(streams: AdapterStreams, champion: str) -> list[VerifierCardEvidence]:
    """The verifier cards recorded with the champion's latest verdict (none for the base model)."""
    for event in reversed(read_events(streams, champion)):
        if isinstance(event.data, AdapterEvaluated):
            return list(event.data.verifier_cards)
    return []


def record_trained(streams: AdapterStreams, folder: Path, *, adapter_id: str | None = None) -> Event:
    """Open the adapter's stream with `adapter.trained`, read from its lineage; once per adapter
    (a retried training step finds the event and returns it)."""
    adapter_id = adapter_id or folder.name
    for event in read_events(streams, adapter_id):
        if isinstance(event.data, AdapterTrained):
            return event
    lineage = read_lineage(folder)
    lora = lineage["hyperparameters"]["lora"]
    base = lineage.get("base_model") or {}
    versions = lineage.get("task_set_versions") or {}
    meta = AdapterMeta(
        adapter_id=adapter_id,
        base_model=str(base.get("name") or base.get("folder") or "base"),
        rank=int(lora["r"]),
        alpha=float(lora["alpha"]),
        target_modules=tuple(lora["target_modules"]),
        dataset_hash=str(lineage["dataset"]["content_hash"]),
        task_set_versions={name: v for name, v in versions.items() if v is not None},
        parent_adapter_id=lineage.get("parent_adapter_id"),
        metrics=_metrics(lineage.get("training") or {}),
        created_at=lineage["created_at"],
        artifact_uri=str(folder.resolve()),
    )
    (doc,) = streams.append(adapter_id, [AdapterTrained(adapter=meta)])
    return from_structured(doc)


def _metrics(training: dict[str, Any]) -> dict[str, float]:
    return {
        k: float(v) for k, v in training.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }
