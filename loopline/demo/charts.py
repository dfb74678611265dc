"""The report's two plots, drawn by matplotlib as inline SVG (no network, no files)."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

matplotlib.rcParams["svg.hashsalt"] = "loopline-report"  # the same run gives the same bytes
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, small


@dataclass(frozen=True)
class Rate:
    """A pass rate with its 95% Wilson interval."""

    passed: int
    total: int

    @property
    def value(self) -> float:
        return self.passed / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson's score interval at 95% (sensible at 0 and at n, unlike the normal one)."""
        if not self.total:
            return (0.0, 0.0)
        z, n, p = 1.96, self.total, self.value
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class FamilyRates:
    """One family's pass rate before (champion) and after (adapter)."""

    family: str
    before: Rate
    after: Rate


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def pass_rates(rows: Sequence[FamilyRates]) -> str:
    """Grouped bars by family, before and after, with 95% intervals as error bars."""
    figure, axes = plt.subplots(figsize=(7, 0.6 + 0.5 * max(1, len(rows))))
    for offset, label, colour, pick in (
        (-0.2, "before (champion)", "#9aa5b1", 0),
        (0.2, "after (adapter)", "#2f7d4f", 1),
    ):
        rates = [(r.before, r.after)[pick] for r in rows]
        values = [100 * r.value for r in rates]
        low = [100 * (r.value - r.interval[0]) for r in rates]
        high = [100 * (r.interval[1] - r.value) for r in rates]
        axes.barh(
            [i + offset for i in range(len(rows))],
            values,
            height=0.38,
            color=colour,
            label=label,
            xerr=[low, high],
            capsize=3,
        )
    axes.set_yticks(range(len(rows)), [r.family for r in rows])
    axes.set_xlim(0, 100)
    axes.set_xlabel("pass rate, % (95% Wilson interval)")
    axes.invert_yaxis()
    axes.legend(loc="lower right", fontsize=8)
    return _svg(figure)


def sprt_path(path: Sequence[float], upper: float, lower: float) -> str:
    """The sequential test's log-likelihood ratio after each discordant pair, between its bounds."""
    figure, axes = plt.subplots(figsize=(7, 2.6))
    axes.axhline(upper, color="#2f7d4f", linestyle="--", label=f"promote ({upper:.2f})")
    axes.axhline(lower, color="#b03a2e", linestyle="--", label=f"roll back ({lower:.2f})")
    axes.plot(range(len(path) + 1), [0.0, *path], marker="o", markersize=3, color="#1f4e79")
    axes.set_xlabel("discordant pairs")
    axes.set_ylabel("log-likelihood ratio")
    axes.legend(loc="best", fontsize=8)
    return _svg(figure)
