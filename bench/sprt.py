"""Benchmark: what the canary's sequential test does at each odds ratio, computed exactly.

    .venv/bin/python bench/sprt.py

For canaries at odds ratios psi from 1/3 to 3 (the canary's odds of passing over the champion's),
the chance of promotion, of a roll back (worse, or undecided at the pair limit), the expected
discordant pairs and the chance of a promotion within 20, 40 and 100 pairs, under the product's
default settings and under the previous ones (psi_bad = 1/3, 200 pairs) for comparison. An exact
walk over the test's (wins, losses) lattice (`training.release.operating`), not a simulation.
Writes bench/results/sprt.json; docs/release.md's table is this output.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from training.release.operating import operating_point  # noqa: E402
from training.release.sequential import SprtSettings  # noqa: E402

PSIS = (1 / 3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
WITHIN = (20, 40, 100)
COLUMNS = (
    "psi",
    "promoted",
    "rolled_back_worse",
    "rolled_back_undecided",
    "mean_pairs",
    "promoted_within_40",
)


def rows(settings: SprtSettings) -> list[dict[str, float]]:
    out = []
    for psi in PSIS:
        point = operating_point(psi, settings)
        row: dict[str, float] = {
            "psi": round(psi, 4),
            "promoted": round(point.promoted, 4),
            "rolled_back_worse": round(point.rolled_back_worse, 4),
            "rolled_back_undecided": round(point.rolled_back_undecided, 4),
            "mean_pairs": round(point.mean_pairs, 1),
        }
        for n in WITHIN:
            row[f"promoted_within_{n}"] = round(point.promoted_within(n), 4)
        out.append(row)
    return out


def main() -> None:
    current = SprtSettings()
    previous = SprtSettings(bad_odds_ratio=1 / 3, max_pairs=200)
    result = {
        "settings": asdict(current),
        "rows": rows(current),
        "previous_settings": asdict(previous),
        "previous_rows": rows(previous),
    }
    table = Table(title="canary test, default settings (exact)")
    for name in COLUMNS:
        table.add_column(name)
    for row in result["rows"]:
        table.add_row(*(f"{row[c]}" for c in COLUMNS))
    Console().print(table)
    out = ROOT / "bench" / "results" / "sprt.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
