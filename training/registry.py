"""The adapter registry on disk: `<state>/adapters/<id>/` holds the adapter, its lineage, its
evaluation and the verdict of the gate.

`evaluation.json` keeps the paired report, the rules and the verdict; `events.jsonl` is the
adapter's event stream (`adapter:<id>`): CloudEvents in structured JSON, one a line, hash-chained
like every Loopline stream and validated against the registered schemas on the way in. Each verdict
appends one `loopline.adapter.evaluated.v1`, so the decision travels with the adapter it is about.
"""

from __future__ import annotations

import json
from pathlib import Path

from schemas.chain import EpisodeChain
from schemas.codec import from_structured
from schemas.envelope import GENESIS_HASH, Event
from schemas.events import AdapterEvaluated
from schemas.gate import SuiteEvidence, VerifierCardEvidence
from schemas.registry import EventData
from training.evaluate import EvalReport
from training.gate import GateRules, GateVerdict

EVALUATION = "evaluation.json"
EVENTS = "events.jsonl"
EVALUATED = AdapterEvaluated.TYPE
SOURCE = "loopline://training/gate"
DEFAULT_TENANT = "loopline"


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
    folder: Path, report: EvalReport, rules: GateRules, verdict: GateVerdict, *, tenant: str = DEFAULT_TENANT
) -> Event:
    """Write the verdict next to its report and append the `adapter.evaluated` event; returns it."""
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
    data = AdapterEvaluated(
        adapter_id=folder.name,
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
    return append_event(folder, data, tenant=tenant)


def read_events(folder: Path) -> list[Event]:
    """The adapter's stream, each line validated (and upcast) against the registered schemas."""
    path = folder / EVENTS
    if not path.is_file():
        return []
    return [from_structured(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def append_event(folder: Path, data: EventData, *, tenant: str = DEFAULT_TENANT) -> Event:
    """Append one event to the adapter's stream `adapter:<id>`, chained to the last one written."""
    stream = read_events(folder)
    last = stream[-1] if stream else None
    chain = EpisodeChain(
        f"adapter:{folder.name}",
        tenant=last.tenant if last else tenant,
        source=SOURCE,
        next_seq=last.seq + 1 if last else 0,
        prevhash=last.hash if last else GENESIS_HASH,
    )
    sealed = chain.seal(data, subject=folder.name)
    event = from_structured(json.loads(sealed.doc))
    with (folder / EVENTS).open("a") as out:
        out.write(sealed.doc.decode() + "\n")
    return event


def champion_cards(state: Path, champion: str) -> list[VerifierCardEvidence]:
    """The verifier cards recorded with the champion's latest verdict (none for the base model)."""
    try:
        folder = adapter_folder(state, champion)
    except FileNotFoundError:
        return []
    for event in reversed(read_events(folder)):
        if isinstance(event.data, AdapterEvaluated):
            return list(event.data.verifier_cards)
    return []
