"""Recall of the free-text PHI scrubber on the labelled corpus (bench/data/phi_corpus.jsonl).

    .venv/bin/python bench/phi_recall.py      # prints a table, writes bench/results/phi_recall.json

Two settings: `patterns` (the scrubber knows nothing of the episode) and `known + patterns` (it
has learned the patient's PHI fields, as the recorder does from tool results). A labelled value
counts as caught when it is no longer in the scrubbed text,
compared by letters and digits alone, case-insensitively (so `+1 604 441 7360` with `604 441 7360`
replaced is caught; `LOPEZ` left in `LOPEZ, MARIA` is not). Also scrubs a set of PHI-free RCM
sentences and reports how many come out unchanged, the price in over-redaction. About a second.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.phi.known import KnownPhi
from bridge.phi.scrub import scrub_text

CORPUS = Path(__file__).parent / "data" / "phi_corpus.jsonl"
OUT = Path(__file__).parent / "results" / "phi_recall.json"
NON_ALNUM = re.compile(r"[^a-z0-9]+")
CLEAN = [
    "CLM-1001 denied with CO-16 and N290; corrected claim submitted.",
    "Appeal filed for CARC 50 on claim CLM-1042, billed $1,240.00.",
    "Payer BLUE requires prior authorization for CPT 99214 within 14 days.",
    "Write-off of $35.00 is under the approval limit; contractual adjustment CO-45.",
    "The remittance shows PR-1 patient responsibility of $20.00.",
    "Timely filing limit is 90 days; the claim was filed on day 12.",
    "Escalated to the credentialing queue: provider not enrolled with MCR.",
    "Eligibility check returned active coverage under group GRP-MCR-01.",
    "Duplicate claim CO-18: the original CLM-1003 was paid.",
    "No action needed: the denial was reversed on reprocessing.",
]


def _normal(text: str) -> str:
    return NON_ALNUM.sub("", text.lower())


def caught(value: str, scrubbed: str) -> bool:
    """Whether `value`, compared by its letters and digits alone, is gone from `scrubbed`."""
    return _normal(value) not in _normal(scrubbed)


def measure(rows: list[dict[str, Any]], use_known: bool) -> dict[str, Any]:
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        known = None
        if use_known:
            known = KnownPhi()
            for value in row["known"]:
                known.learn(value)
        scrubbed = scrub_text(row["text"], known, lambda _value: "▮")
        for item in row["phi"]:
            hits[item["class"]][1] += 1
            hits[item["class"]][0] += caught(item["value"], scrubbed)
    total = [sum(h[0] for h in hits.values()), sum(h[1] for h in hits.values())]
    return {
        "recall": total[0] / total[1],
        "caught": total[0],
        "labelled": total[1],
        "by_class": {
            k: {"recall": h[0] / h[1], "caught": h[0], "labelled": h[1]} for k, h in sorted(hits.items())
        },
    }


def main() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    results: dict[str, Any] = {
        "corpus": {"strings": len(rows), "values": sum(len(r["phi"]) for r in rows)},
        "patterns": measure(rows, use_known=False),
        "known_and_patterns": measure(rows, use_known=True),
        "clean_sentences_unchanged": sum(scrub_text(t, None, lambda _v: "▮") == t for t in CLEAN),
        "clean_sentences": len(CLEAN),
    }
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{len(rows)} strings, {results['corpus']['values']} labelled PHI values")
    print(f"{'class':<12} {'patterns':>10} {'known + patterns':>18}")
    for kind, row in results["known_and_patterns"]["by_class"].items():
        alone = results["patterns"]["by_class"][kind]
        print(f"{kind:<12} {alone['recall']:>10.3f} {row['recall']:>18.3f}   ({row['labelled']} values)")
    print(
        f"{'all':<12} {results['patterns']['recall']:>10.3f} {results['known_and_patterns']['recall']:>18.3f}"
    )
    print(f"PHI-free sentences unchanged: {results['clean_sentences_unchanged']} of {len(CLEAN)}")


if __name__ == "__main__":
    main()
