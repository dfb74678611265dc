"""The demo's report as one self-contained HTML page (`.loopline/demo/report/index.html`).

Everything comes from the run: the archive (episodes, their events, tool calls, edge cases, capture
lag), the audit, the verifier card, the promotion drafts, and, when the improvement stage ran, its
per-family pass rates, the canary's trail and the sequential test's path. The page has no script,
no stylesheet link and no font to fetch; plots are inline SVG (`loopline.demo.charts`); the template
(`templates/report.html.j2`) escapes every value.
"""

from __future__ import annotations

import io
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from rich.console import Console

from adapters.drafting.store import PromotionStatus
from bridge.store import SqlEpisodeReader, SqlEventArchive
from loopline.card.model import VerifierCard
from loopline.card.render import sections
from loopline.demo.charts import FamilyRates, pass_rates, sprt_path
from loopline.inspect import timeline
from loopline.inspect.timeline import TimelineRow
from loopline.streams.audit import AuditOutcome


@dataclass(frozen=True)
class EpisodeEntry:
    """One episode of the run, with the events behind every number that counts it."""

    episode_id: str
    item_id: str
    status: str
    rows: list[TimelineRow]


@dataclass(frozen=True)
class Latency:
    """Seconds from an event's time to its arrival in the archive (outbox → Kafka → projector)."""

    events: int
    p50: float
    p95: float
    worst: float


@dataclass(frozen=True)
class ImprovementView:
    """What the improvement stage showed, as the page draws it."""

    adapter_id: str
    gate: str
    decision: str
    reason: str
    problems: list[str]
    families: list[FamilyRates]
    day: list[tuple[str, str, str, bool]]
    """(case id, family, served name, passed) for every episode of the second day."""
    trail: list[dict[str, Any]]
    path: list[float]
    upper: float
    lower: float


@dataclass
class ReportInputs:
    """What the page is made of."""

    domain: str
    seconds: float
    episodes: list[EpisodeEntry]
    events: int
    archived: int
    outcomes: int
    audit: AuditOutcome
    tool_rates: list[Any]
    edge_cases: list[Any]
    latency: Latency | None
    card: VerifierCard | None = None
    drafts: list[PromotionStatus] = field(default_factory=list)
    improvement: ImprovementView | None = None


def collect(
    reader: SqlEpisodeReader,
    episodes: Sequence[dict[str, Any]],
    *,
    domain: str,
    seconds: float,
    events: int,
    archived: int,
    outcomes: int,
    audit: AuditOutcome,
    source: str,
) -> ReportInputs:
    """The run's facts from the archive (the stages after it add theirs to the result)."""
    entries = [
        EpisodeEntry(
            episode_id=e["episode_id"],
            item_id=str(e.get("item_id", "")),
            status=str(e.get("status", "")),
            rows=timeline([ev.structured for ev in reader.episode_events(e["episode_id"])]),
        )
        for e in episodes
    ]
    return ReportInputs(
        domain=domain,
        seconds=seconds,
        episodes=entries,
        events=events,
        archived=archived,
        outcomes=outcomes,
        audit=audit,
        tool_rates=reader.tool_error_rates(),
        edge_cases=reader.list_edge_cases(limit=1000),
        latency=capture_latency(SqlEventArchive(reader.engine), source),
    )


def capture_latency(archive: SqlEventArchive, source: str) -> Latency | None:
    """The archive's arrival lag for `source`'s events (None when it holds none)."""
    lags = archive.arrival_lags(source)
    if not lags:
        return None
    p95 = lags[min(len(lags) - 1, int(0.95 * len(lags)))]
    return Latency(events=len(lags), p50=statistics.median(lags), p95=p95, worst=lags[-1])


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def promotion_latency(
    drafts: Sequence[PromotionStatus], edge_cases: Sequence[Any]
) -> list[tuple[str, str, float | None]]:
    """(draft, task, seconds from the edge case's first detection to publication) per published draft."""
    first_seen = {c.fingerprint: _aware(c.first_seen) for c in edge_cases}
    out = []
    for d in drafts:
        if d.stage != "published":
            continue
        seen = first_seen.get(d.fingerprint)
        out.append(
            (d.draft_id, d.task_id or "", (_aware(d.updated_at) - seen).total_seconds() if seen else None)
        )
    return out


def card_html(card: VerifierCard) -> Markup:
    """The card's tables as the console prints them, exported by rich as escaped HTML."""
    console = Console(record=True, width=140, file=io.StringIO())
    for part in sections(card):
        console.print(part)
    return Markup(console.export_html(inline_styles=True, code_format="<pre class=card>{code}</pre>"))


def render(inputs: ReportInputs) -> str:
    """The page."""
    env = Environment(
        loader=PackageLoader("loopline.demo", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    statuses = Counter(e.status for e in inputs.episodes)
    improvement = inputs.improvement
    funnel = Counter(d.stage for d in inputs.drafts)
    return env.get_template("report.html.j2").render(
        r=inputs,
        statuses=sorted(statuses.items(), key=lambda kv: -kv[1]),
        funnel=funnel,
        promotion=promotion_latency(inputs.drafts, inputs.edge_cases),
        episode_ids={e.episode_id for e in inputs.episodes},
        card=card_html(inputs.card) if inputs.card is not None else None,
        rates_svg=Markup(pass_rates(improvement.families)) if improvement and improvement.families else None,
        path_svg=(
            Markup(sprt_path(improvement.path, improvement.upper, improvement.lower))
            if improvement and improvement.path
            else None
        ),
    )


def write(inputs: ReportInputs, folder: Path) -> Path:
    """Write `folder/index.html` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "index.html"
    page.write_text(render(inputs), encoding="utf-8")
    return page
