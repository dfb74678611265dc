"""Recall and precision of the fail-closed PHI guard on the held-out corpus (bench/data/phi_heldout.jsonl).

    .venv/bin/python bench/phi_heldout.py     # prints a table, writes bench/results/phi_heldout.json

Each labelled string is put where its row says (`field`: the instructions, a `close_claim` note, an
escalation queue, a call id, an argument key, an outcome's reason code...) in the event that holds
that field, and the event goes through `EventGuard` as the recorder applies it, with the episode's
known PHI (`known`) and the tenant's directory holding the episode's values and those of other
patients of the world (`world`). A labelled value is caught when it is no longer anywhere in the
guarded event's JSON, compared by letters and digits alone, case-insensitively (the test of
`bench/phi_recall.py`). Precision is per string: of the strings the guard changed, the share that
held PHI; `clean_kept` is the share of PHI-free strings left as they were (the price of
closing). The corpus was written (bench/phi_heldout_corpus.py) from the RCM brief before the guard
and the directory were; docs/capture.md says how far it is held out. About two seconds.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from bridge.phi import KnownPhi, PhiKeys, PhiTokenizer, PhiVault
from bridge.phi.guard import EventGuard
from schemas import ToolCall, WorkItem
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.registry import EventData
from schemas.tools import ToolError

CORPUS = Path(__file__).parent / "data" / "phi_heldout.jsonl"
OUT = Path(__file__).parent / "results" / "phi_heldout.json"
NON_ALNUM = re.compile(r"[^a-z0-9]+")
GOAL_RECALL = 0.99


def _started(
    instructions: str = "Work the denial.", item_id: str = "CLM-1001", model: str = "m"
) -> EventData:
    item = WorkItem(domain="rcm", kind="denial", item_id=item_id, instructions=instructions)
    return EpisodeStarted(
        work_item=item, policy=PolicyRef(model=model), tools=("get_claim",), tools_hash="ab" * 8,
        system_prompt_hash="cd" * 8, max_steps=10, max_seconds=60.0,
    )  # fmt: skip


def _called(name: str = "get_claim", call_id: str = "c1", **arguments: Any) -> EventData:
    return ToolCalled(
        call=ToolCall(call_id=call_id, name=name, arguments={"claim_id": "CLM-1001", **arguments})
    )


def _outcome(**fields: Any) -> EventData:
    base: dict[str, Any] = {
        "kind": "paid",
        "item_id": "CLM-1001",
        "observed_at": datetime(2026, 2, 1, tzinfo=UTC),
    }
    return OutcomeObserved(**(base | fields))


def _failed(message: str) -> EventData:
    return ToolFailed(call_id="c1", name="get_claim", error=ToolError(kind="domain", message=message))


PLACES: dict[str, Callable[[str], EventData]] = {
    "work_item.instructions": lambda t: _started(instructions=t),
    "work_item.item_id": lambda t: _started(item_id=t),
    "policy.model": lambda t: _started(model=t),
    "close_claim.note": lambda t: _called("close_claim", note=t),
    "correct_claim.note": lambda t: _called("correct_claim", note=t),
    "call.call_id": lambda t: _called(call_id=t),
    "call.name": lambda t: _called(name=t),
    "arguments.<key>": lambda t: _called(**{t: "x"}),
    "result.<key>": lambda t: ToolReturned(call_id="c1", name="get_claim", result={t: 1}),
    "escalated.reason": lambda t: Escalated(reason=t, trigger="policy"),
    "escalated.recommendation": lambda t: Escalated(reason="r", trigger="policy", recommendation=t),
    "escalated.queue": lambda t: Escalated(reason="r", trigger="policy", queue=t),
    "episode.ended.final_message": lambda t: EpisodeEnded(
        status="completed", steps=1, tool_calls=1, duration_ms=1.0, final_message=t
    ),
    "model.responded.content": lambda t: ModelResponded(turn=0, content=t),
    "human.intervened.note": lambda t: HumanIntervened(
        actor="u-1", role="supervisor", action="annotate", note=t
    ),
    "human.intervened.actor": lambda t: HumanIntervened(actor=t, role="supervisor", action="annotate"),
    "tool.failed.error.message": _failed,
    "outcome.observed.external_ref": lambda t: _outcome(external_ref=t),
    "outcome.observed.kind": lambda t: _outcome(kind=t),
    "outcome.observed.reason_codes": lambda t: _outcome(reason_codes=(t,)),
}


def _normal(text: str) -> str:
    return NON_ALNUM.sub("", text.lower())


SETTINGS = {
    "guard": ("known", "world"),
    "episode_only": ("known",),
    "patterns_and_shapes": (),
}
"""What the guard knows in each setting: the episode's values, the other patients of the world."""


def guarded_json(
    row: dict[str, Any], vault: PhiVault, keys: PhiKeys, knows: tuple[str, ...] = ("known", "world")
) -> str:
    """The row's string in its field, guarded as the recorder would: the event's JSON."""
    tokenizer = PhiTokenizer(keys, vault)
    directory = tokenizer.directory("bench")
    known = KnownPhi()
    for value in row["known"] if "known" in knows else ():
        known.learn(value)
        directory.learn(value)
    for value in row["world"] if "world" in knows else ():
        directory.learn(value)
    guard = EventGuard(tokenizer, "bench", tools=frozenset(RCM_TOOLS_BY_NAME))
    data = guard.guard(PLACES[row["field"]](row["text"]), known)
    return json.dumps(data.model_dump(mode="json"), ensure_ascii=False)


def measure(rows: list[dict[str, Any]], knows: tuple[str, ...]) -> dict[str, Any]:
    keys = PhiKeys.from_config(None, environment="dev")
    vault = PhiVault.open("sqlite://", keys)
    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_field: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: list[dict[str, str]] = []
    changed_phi = changed_clean = clean = clean_kept = 0
    for row in rows:
        out = guarded_json(row, vault, keys, knows)
        changed = json.dumps(row["text"], ensure_ascii=False) not in out
        if not row["phi"]:
            clean += 1
            clean_kept += not changed
            changed_clean += changed
            continue
        changed_phi += changed
        for label in row["phi"]:
            hit = _normal(label["value"]) not in _normal(out)
            for tally in (by_class[label["class"]], by_field[row["field"]]):
                tally[0] += hit
                tally[1] += 1
            if not hit:
                missed.append({"field": row["field"], "text": row["text"], "value": label["value"]})
    vault.close()
    caught, labelled = sum(h[0] for h in by_class.values()), sum(h[1] for h in by_class.values())
    return {
        "recall": caught / labelled,
        "caught": caught,
        "labelled": labelled,
        "goal_recall": GOAL_RECALL,
        "precision": changed_phi / max(1, changed_phi + changed_clean),
        "clean_kept": clean_kept / max(1, clean),
        "clean_strings": clean,
        "by_class": {k: {"recall": h[0] / h[1], "labelled": h[1]} for k, h in sorted(by_class.items())},
        "by_field": {k: {"recall": h[0] / h[1], "labelled": h[1]} for k, h in sorted(by_field.items())},
        "missed": missed,
    }


def main() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    results: dict[str, Any] = {"corpus": {"strings": len(rows), "values": sum(len(r["phi"]) for r in rows)}}
    results |= measure(rows, SETTINGS["guard"])
    results["ablations"] = {
        name: {k: v for k, v in measure(rows, knows).items() if k in ("recall", "precision", "clean_kept")}
        for name, knows in SETTINGS.items()
        if name != "guard"
    }
    OUT.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(rows)} strings, {results['corpus']['values']} labelled PHI values")
    for kind, row in results["by_class"].items():
        print(f"{kind:<12} recall {row['recall']:.3f}   ({row['labelled']} values)")
    print(
        f"all          recall {results['recall']:.3f} (goal {GOAL_RECALL})   precision {results['precision']:.3f}"
    )
    print(f"PHI-free strings kept: {results['clean_kept']:.3f} of {results['clean_strings']}")
    for name, row in results["ablations"].items():
        print(
            f"  without what it learns ({name}): recall {row['recall']:.3f}, precision {row['precision']:.3f}"
        )
    for miss in results["missed"]:
        print(f"  missed {miss['value']!r} in {miss['field']}: {miss['text']!r}")


if __name__ == "__main__":
    main()
