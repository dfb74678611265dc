"""The scrubber against the labelled corpus (bench/data/phi_corpus.jsonl; bench/phi_recall.py
reports the same per class): at least 200 strings, recall at least 0.99 once the episode's PHI
fields are known, and PHI-free RCM sentences left as they are."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from bridge.phi.known import KnownPhi
from bridge.phi.scrub import scrub_text

CORPUS = Path(__file__).parents[3] / "bench" / "data" / "phi_corpus.jsonl"


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def test_the_scrubber_catches_at_least_99_percent_of_the_labelled_phi() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    assert len(rows) >= 200
    missed, labelled = [], 0
    for row in rows:
        known = KnownPhi()
        for value in row["known"]:
            known.learn(value)
        scrubbed = scrub_text(row["text"], known, lambda _value: "#")
        for item in row["phi"]:
            labelled += 1
            if _normal(item["value"]) in _normal(scrubbed):
                missed.append((item["class"], item["value"], scrubbed))
    assert 1 - len(missed) / labelled >= 0.99, missed[:5]
    assert len({item["class"] for row in rows for item in row["phi"]}) >= 12


def test_phi_free_rcm_text_comes_out_unchanged() -> None:
    text = "CLM-1001 denied CO-16 N290; appeal for CARC 50 on CLM-1042, billed $1,240.00 within 90 days."
    assert scrub_text(text, KnownPhi(), lambda _value: "#") == text


def test_the_guard_keeps_its_recall_on_the_corpus_written_blind() -> None:
    # bench/data/phi_independent.jsonl was written before the guard's code was read; the guard was
    # improved from its misses afterwards, so this holds the gain, not an independent figure.
    spec = importlib.util.spec_from_file_location("phi_independent", CORPUS.parents[1] / "phi_independent.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    entries = [json.loads(line) for line in bench.CORPUS.read_text().splitlines() if line.strip()]
    records = json.loads(bench.RECORDS.read_text())["records"]
    result = bench.measure(entries, records, bench.SETTINGS["guard"])
    assert result["labelled"] >= 450 and result["recall"] >= 0.99, result["missed"][:5]
    assert result["negatives_kept"] >= 0.95, result["negatives_flagged"][:5]
