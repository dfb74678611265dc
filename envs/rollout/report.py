"""Pass rates per category (a task tag such as `carc:16`), and their rich table."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.table import Table

from envs.rollout.episode import EpisodeRecord

ALL = "all"


@dataclass(frozen=True)
class CategoryStats:
    """How one category of tasks went."""

    category: str
    episodes: int
    passed: int
    mean_score: float

    @property
    def pass_rate(self) -> float:
        """Share of episodes whose verdict passed."""
        return self.passed / self.episodes if self.episodes else 0.0


def category_of(tags: Iterable[str], prefix: str) -> str:
    """The first tag with `prefix` (`carc:16` → `16` for prefix `carc`), else `(none)`."""
    head = prefix.rstrip(":") + ":"
    for tag in tags:
        if tag.startswith(head):
            return tag[len(head) :]
    return "(none)"


def _sort_key(name: str) -> tuple[int, int, str]:
    # Numeric codes in numeric order (1, 2, 16, 197), then the rest, `all` last.
    if name == ALL:
        return (2, 0, name)
    return (0, int(name), name) if name.isdigit() else (1, 0, name)


def summarize(records: Sequence[EpisodeRecord], prefix: str) -> list[CategoryStats]:
    """Stats per category, sorted, with an `all` row last."""
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        groups[category_of(record.tags, prefix)].append(record)
    groups[ALL] = list(records)
    return [
        CategoryStats(
            category=name,
            episodes=len(rows),
            passed=sum(r.verdict.passed for r in rows),
            mean_score=sum(r.verdict.score for r in rows) / len(rows) if rows else 0.0,
        )
        for name, rows in sorted(groups.items(), key=lambda item: _sort_key(item[0]))
    ]


def stats_table(stats: Sequence[CategoryStats], *, title: str, prefix: str) -> Table:
    """A rich table: category, episodes, passed, pass rate, mean score."""
    table = Table(title=title)
    table.add_column(prefix.rstrip(":"), style="bold")
    for name in ("episodes", "passed", "pass rate", "mean score"):
        table.add_column(name, justify="right")
    for row in stats:
        style = "bold" if row.category == ALL else None
        table.add_row(
            row.category,
            str(row.episodes),
            str(row.passed),
            f"{row.pass_rate:.1%}",
            f"{row.mean_score:.3f}",
            style=style,
        )
    return table
