"""Recall and precision of the PHI guard on a corpus written blind (bench/data/phi_independent.jsonl).

    .venv/bin/python bench/phi_independent.py     # prints a table, writes bench/results/phi_independent.json
    .venv/bin/python bench/phi_independent.py --corpus bench/data/phi_independent2.jsonl \
        --records bench/data/phi_independent2_records.json --out bench/results/phi_independent2.json

The corpus (261 strings: revenue-cycle and credit-desk notes and fields, 478 labelled PHI spans,
241 labelled negatives) and its 22 records (bench/data/phi_independent_records.json) were written
and committed before the guard's code or patterns were read; its history shows that. Each note is
put in a free-text field of an event (the instructions, a `close_claim` note, an escalation reason,
a supervisor's note, a model's reply, in turn); each field value goes in as a tool result's value
under its field name, the place of a value no model marks. The event goes through `EventGuard`
with the episode's known PHI (the records the entry touches) and the tenant's directory (those
records and every other record of the same domain: the other patients of the world).

Scoring is by character: the guarded string is aligned with the original (the guard only replaces
stretches by tokens), and a PHI span is caught only when every run of three or more letters or
digits in it was replaced (a surname left beside a tokenised given name is a miss; the `O'` left of
`O'Brien` is not); a span of shorter runs only (`Li`) must be replaced whole.
`recall_every_character` counts a span only when every letter and digit of it was replaced. A negative is flagged when any letter or
digit of it was replaced. Precision is per replaced stretch: stretches touching PHI over those that
touch PHI or nothing labelled neutral. Spans labelled neutral (dates of service, payer claim
numbers, a provider's name: policy decides) count either way. Under two seconds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from bridge.phi import KnownPhi, PhiKeys, PhiTokenizer, PhiVault
from bridge.phi.guard import EventGuard
from schemas import ToolCall, WorkItem
from schemas.events import (
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    PolicyRef,
    ToolCalled,
    ToolReturned,
)
from schemas.registry import EventData

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "phi_independent.jsonl"
RECORDS = DATA / "phi_independent_records.json"
OUT = Path(__file__).parent / "results" / "phi_independent.json"
GOAL_RECALL = 0.99
TOKEN = re.compile(r"phi_[0-9a-f]{16}")
NOT_LEARNED = ("role", "state", "family_name_first", "guarantor")
"""Record keys that are facts about the record, not values a system of record would tokenise."""


def _started(text: str) -> EventData:
    item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1001", instructions=text)
    return EpisodeStarted(
        work_item=item, policy=PolicyRef(model="m"), tools=("get_claim",), tools_hash="ab" * 8,
        system_prompt_hash="cd" * 8, max_steps=10, max_seconds=60.0,
    )  # fmt: skip


NOTE_PLACES: tuple[tuple[str, Callable[[str], EventData], Callable[[dict[str, Any]], str]], ...] = (
    ("work_item.instructions", _started, lambda d: str(d["work_item"]["instructions"])),
    (
        "close_claim.note",
        lambda t: ToolCalled(call=ToolCall(call_id="c1", name="close_claim", arguments={"note": t})),
        lambda d: str(d["call"]["arguments"]["note"]),
    ),
    ("escalated.reason", lambda t: Escalated(reason=t, trigger="policy"), lambda d: str(d["reason"])),
    (
        "human.intervened.note",
        lambda t: HumanIntervened(actor="u-1", role="supervisor", action="annotate", note=t),
        lambda d: str(d["note"]),
    ),
    ("model.responded.content", lambda t: ModelResponded(turn=0, content=t), lambda d: str(d["content"])),
)
"""(place, event holding the text there, where the guarded text is in the event's JSON)."""


def _field_event(field: str, text: str) -> EventData:
    return ToolReturned(call_id="c1", name="get_claim", result={field: text})


def record_values(record: dict[str, Any]) -> list[str]:
    """The values of a record that a system of record marks PHI (its name, ids, contacts)."""
    return [str(v) for k, v in record.items() if k not in NOT_LEARNED]


def covered(original: str, guarded: str) -> list[bool]:
    """Per character of `original`, whether the guard replaced it by a token."""
    pieces = TOKEN.split(guarded)
    mask = [True] * len(original)
    cursor = 0
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        if index == 0:
            at = 0 if original.startswith(piece) else -1
        elif index == len(pieces) - 1:
            at = len(original) - len(piece) if original.endswith(piece) else -1
        else:
            at = original.find(piece, cursor + 1)
        if at < cursor:
            raise ValueError(f"guarded text does not align with its original: {guarded!r}")
        for i in range(at, at + len(piece)):
            mask[i] = False
        cursor = at + len(piece)
    return mask


CHUNK = re.compile(r"[^\W_]+")
MIN_IDENTIFYING = 3
"""A left-over run of fewer letters or digits (the `O'` of a tokenised `O'Brien`, an initial)
identifies nobody; a span made only of such runs (`Li`) must be replaced whole."""


def _all_replaced(text: str, mask: list[bool], start: int, end: int) -> bool:
    return all(mask[i] for i in range(start, end) if text[i].isalnum())


def _caught(text: str, mask: list[bool], start: int, end: int) -> bool:
    """Whether every identifying run of letters or digits of the span was replaced."""
    chunks = [(start + m.start(), start + m.end()) for m in CHUNK.finditer(text[start:end])]
    long = [c for c in chunks if c[1] - c[0] >= MIN_IDENTIFYING] or chunks
    return all(_all_replaced(text, mask, a, b) for a, b in long)


def _any_replaced(text: str, mask: list[bool], start: int, end: int) -> bool:
    return any(mask[i] for i in range(start, end) if text[i].isalnum())


def _stretches(mask: list[bool]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i, hit in enumerate(mask):
        if hit and out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        elif hit:
            out.append((i, i + 1))
    return out


def guard_entry(
    entry: dict[str, Any],
    index: int,
    records: dict[str, dict[str, Any]],
    knows: tuple[str, ...],
    vault: PhiVault,
    keys: PhiKeys,
) -> tuple[str, str]:
    """(place, the entry's text as the guard left it in its event)."""
    tokenizer = PhiTokenizer(keys, vault)
    directory = tokenizer.directory("bench")
    known = KnownPhi()
    touched = set(entry["records"])
    for rid, record in records.items():
        values = record_values(record)
        if rid in touched and "known" in knows:
            for value in values:
                known.learn(value)
                directory.learn(value)
        elif rid not in touched and "world" in knows and rid[0] in _DOMAIN_PREFIXES[entry["domain"]]:
            for value in values:
                directory.learn(value)
    guard = EventGuard(tokenizer, "bench", tools=frozenset(RCM_TOOLS_BY_NAME))
    if entry["source"] == "field":
        place, field = f"result.{entry['field']}", entry["field"]
        data = guard.guard(_field_event(field, entry["text"]), known).model_dump(mode="json")
        return place, str(data["result"][field])
    place, build, read = NOTE_PLACES[index % len(NOTE_PLACES)]
    return place, read(guard.guard(build(entry["text"]), known).model_dump(mode="json"))


_DOMAIN_PREFIXES = {"rcm": ("P", "G"), "credit": ("C",)}


def measure(
    entries: list[dict[str, Any]], records: dict[str, dict[str, Any]], knows: tuple[str, ...]
) -> dict[str, Any]:
    keys = PhiKeys.from_config(None, environment="dev")
    vault = PhiVault.open("sqlite://", keys)
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_known: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_place: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    neg_by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    true_stretches = false_stretches = every_character = 0
    for index, entry in enumerate(entries):
        text = entry["text"]
        place, out = guard_entry(entry, index, records, knows, vault, keys)
        mask = covered(text, out)
        for span in entry["spans"]:
            start, end = span["start"], span["end"]
            if span["label"] == "phi":
                hit = _caught(text, mask, start, end)
                every_character += _all_replaced(text, mask, start, end)
                known_key = "in_a_record" if span["known"] else "in_no_record"
                for tally in (by_kind[span["kind"]], by_known[known_key], by_place[place]):
                    tally[0] += hit
                    tally[1] += 1
                if not hit:
                    missed.append(
                        {"id": entry["id"], "kind": span["kind"], "value": span["text"], "out": out}
                    )
            elif span["label"] == "negative":
                hit = _any_replaced(text, mask, start, end)
                neg_by_kind[span["kind"]][0] += hit
                neg_by_kind[span["kind"]][1] += 1
                if hit:
                    flagged.append({"id": entry["id"], "kind": span["kind"], "value": span["text"]})
        for start, end in _stretches(mask):
            touching = {s["label"] for s in entry["spans"] if s["start"] < end and start < s["end"]}
            if "phi" in touching:
                true_stretches += 1
            elif "neutral" not in touching and any(c.isalnum() for c in text[start:end]):
                false_stretches += 1
    vault.close()
    caught, labelled = sum(h[0] for h in by_kind.values()), sum(h[1] for h in by_kind.values())
    negs_flagged, negatives = sum(h[0] for h in neg_by_kind.values()), sum(h[1] for h in neg_by_kind.values())

    def table(tallies: dict[str, list[int]]) -> dict[str, dict[str, float | int]]:
        return {k: {"recall": h[0] / h[1], "labelled": h[1]} for k, h in sorted(tallies.items())}

    return {
        "recall": caught / labelled,
        "caught": caught,
        "labelled": labelled,
        "goal_recall": GOAL_RECALL,
        "recall_every_character": every_character / labelled,
        "precision": true_stretches / max(1, true_stretches + false_stretches),
        "replaced_stretches": {"phi": true_stretches, "nothing_labelled_phi": false_stretches},
        "negatives_kept": 1 - negs_flagged / negatives,
        "negatives": negatives,
        "by_known": table(by_known),
        "by_kind": table(by_kind),
        "by_place": table(by_place),
        "negatives_flagged_by_kind": {
            k: {"flagged": h[0], "labelled": h[1]} for k, h in sorted(neg_by_kind.items()) if h[0]
        },
        "missed": missed,
        "negatives_flagged": flagged,
    }


SETTINGS = {"guard": ("known", "world"), "episode_only": ("known",), "patterns_and_shapes": ()}
"""What the guard knows in each setting: the touched records, the other records of the world."""


def _shown(path: Path) -> str:
    """The path from the repository root when it is inside the repository."""
    root, full = Path(__file__).resolve().parents[1], path.resolve()
    return full.relative_to(root).as_posix() if full.is_relative_to(root) else str(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the labelled strings (JSON lines)")
    parser.add_argument("--records", type=Path, default=RECORDS, help="the records the strings touch")
    parser.add_argument("--out", type=Path, default=OUT, help="where the results are written")
    args = parser.parse_args(argv)
    entries = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    records: dict[str, dict[str, Any]] = json.loads(args.records.read_text())["records"]
    results: dict[str, Any] = {
        "corpus": {
            "strings": len(entries),
            "phi_spans": sum(s["label"] == "phi" for e in entries for s in e["spans"]),
            "negatives": sum(s["label"] == "negative" for e in entries for s in e["spans"]),
            "records": len(records),
            "path": _shown(args.corpus),
        }
    }
    results |= measure(entries, records, SETTINGS["guard"])
    results["ablations"] = {
        name: {k: v for k, v in measure(entries, records, knows).items() if k in _SUMMARY}
        for name, knows in SETTINGS.items()
        if name != "guard"
    }
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    corpus = results["corpus"]
    print(f"{corpus['strings']} strings, {corpus['phi_spans']} PHI spans, {corpus['negatives']} negatives")
    for kind, row in results["by_kind"].items():
        print(f"{kind:<14} recall {row['recall']:.3f}   ({row['labelled']} spans)")
    for kind, row in results["by_known"].items():
        print(f"{kind:<14} recall {row['recall']:.3f}   ({row['labelled']} spans)")
    print(
        f"all            recall {results['recall']:.3f} (goal {GOAL_RECALL}; every character "
        f"{results['recall_every_character']:.3f})   "
        f"precision {results['precision']:.3f}   negatives kept {results['negatives_kept']:.3f}"
    )
    for name, row in results["ablations"].items():
        print(f"  {name}: recall {row['recall']:.3f}, precision {row['precision']:.3f}")


_SUMMARY = ("recall", "recall_every_character", "precision", "negatives_kept")

if __name__ == "__main__":
    main()
