"""Build bench/data/phi_independent2.jsonl from its authored source (bench/data/phi_independent2.src.txt).

    .venv/bin/python bench/phi_independent2_build.py
    .venv/bin/python bench/phi_independent2_build.py --source bench/data/phi_independent3.src.txt \
        --records bench/data/phi_independent3_records.json --out bench/data/phi_independent3.jsonl --ids i3

The source holds one string a line, its spans marked inline (`[p:KIND|text]` PHI of a person in a
record, `[q:KIND|text]` PHI in no record, `[n:KIND|text]` a negative, `[u:KIND|text]` neutral); the
rows written are those `bench/phi_independent.py` reads: id, domain, source (and field), text,
records and character spans with label, kind and whether the value's person is in a record.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "phi_independent2.src.txt"
CORPUS = DATA / "phi_independent2.jsonl"
RECORDS = DATA / "phi_independent2_records.json"
MARK = re.compile(r"\[([pqnu]):([a-z_0-9]+)\|([^\]]+)\]")
LABELS = {"p": ("phi", True), "q": ("phi", False), "n": ("negative", False), "u": ("neutral", False)}
DOMAINS = ("rcm", "credit")


def parse_line(line: str, number: int, known_records: set[str], ids: str = "i2") -> dict[str, Any]:
    """One corpus row from one source line; a malformed line is a ValueError naming it."""
    head, sep, body = line.partition(" :: ")
    fields = head.split()
    if not sep or len(fields) != 3 or fields[0] not in DOMAINS:
        raise ValueError(f"line {number}: expected 'DOMAIN SOURCE RECORDS :: TEXT': {line!r}")
    domain, source, records = fields
    row: dict[str, Any] = {"id": f"{ids}-{number:04d}", "domain": domain}
    if source == "note":
        row["source"] = "note"
    elif source.startswith("field="):
        row["source"], row["field"] = "field", source.removeprefix("field=")
    else:
        raise ValueError(f"line {number}: source must be 'note' or 'field=NAME': {source!r}")
    row["records"] = [] if records == "-" else records.split(",")
    unknown = set(row["records"]) - known_records
    if unknown:
        raise ValueError(f"line {number}: no such record(s) {sorted(unknown)}")
    text, spans, cursor = "", [], 0
    for match in MARK.finditer(body):
        text += body[cursor : match.start()]
        label, known = LABELS[match.group(1)]
        start = len(text)
        text += match.group(3)
        spans.append(
            {"start": start, "end": len(text), "text": match.group(3), "label": label,
             "kind": match.group(2), "known": known}
        )  # fmt: skip
        cursor = match.end()
    text += body[cursor:]
    if "[" in text or "]" in text:
        raise ValueError(f"line {number}: unparsed mark in {text!r}")
    row["text"], row["spans"] = text, spans
    return row


def build(source: Path = SOURCE, records_path: Path = RECORDS, ids: str = "i2") -> list[dict[str, Any]]:
    records = set(json.loads(records_path.read_text())["records"])
    rows = []
    for number, line in enumerate(source.read_text().splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            rows.append(parse_line(line, number, records, ids))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="the inline-marked source")
    parser.add_argument("--records", type=Path, default=RECORDS, help="the records the strings touch")
    parser.add_argument("--out", type=Path, default=CORPUS, help="where the corpus is written")
    parser.add_argument("--ids", default="i2", help="the rows' id prefix")
    args = parser.parse_args(argv)
    rows = build(args.source, args.records, args.ids)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    spans = [s for r in rows for s in r["spans"]]
    phi = [s for s in spans if s["label"] == "phi"]
    print(
        f"{len(rows)} strings, {len(phi)} PHI spans in {len({s['kind'] for s in phi})} kinds, "
        f"{sum(s['label'] == 'negative' for s in spans)} negatives, "
        f"{sum(s['label'] == 'neutral' for s in spans)} neutral"
    )


if __name__ == "__main__":
    main()
