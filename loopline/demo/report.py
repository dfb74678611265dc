"""The demo's closing report: rich tables on the console, and the same facts as JSON."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.table import Table

from bridge.store import SqlEpisodeReader
from loopline.inspect import timeline
from loopline.streams.audit import AuditOutcome


def print_report(
    console: Console,
    reader: SqlEpisodeReader,
    episodes: list[dict[str, Any]],
    audit: AuditOutcome,
    result: Any,
) -> None:
    statuses = Counter(e["status"] for e in episodes)
    summary = Table(title="episodes worked through the bridge")
    summary.add_column("status")
    summary.add_column("episodes", justify="right")
    for status, count in statuses.most_common():
        summary.add_row(status, str(count))
    console.print(summary)

    rates = Table(title="tool calls against the live system (projection)")
    for column in ("tool", "calls", "failed", "unknown"):
        rates.add_column(column, justify="right" if column != "tool" else "left")
    for rate in reader.tool_error_rates():
        rates.add_row(rate.tool, str(rate.calls), str(rate.failures), str(rate.unknown))
    console.print(rates)

    cases = Table(title="edge cases detected in the stream (deduplicated by fingerprint)")
    for column in ("rule", "severity", "seen", "summary"):
        cases.add_column(column, overflow="fold")
    for case in reader.list_edge_cases(limit=50):
        cases.add_row(case.rule, case.severity, str(case.count), case.summary)
    console.print(cases)

    busiest = max(reader.list_episodes(limit=1000), key=lambda e: e.tool_calls, default=None)
    if busiest is not None:
        table = Table(title=f"one episode, as `loopline inspect {busiest.episode_id}` shows it")
        widths = {"seq": (3, 4), "event": (15, 16), "what": (20, 34), "detail": (10, 60)}
        for column, (low, high) in widths.items():
            table.add_column(column, no_wrap=True, overflow="ellipsis", min_width=low, max_width=high)
        events = [e.structured for e in reader.episode_events(busiest.episode_id)]
        for row in timeline(events):
            table.add_row(str(row.seq), row.kind, row.what, row.detail, style=row.style or None)
        console.print(table)

    for label, line in audit.findings[:20]:
        console.print(f"[red]{label}:[/] {line}", highlight=False, soft_wrap=True)
    verdict = (
        f"[green]no finding[/] ({'; '.join(audit.checked)})"
        if audit.ok
        else f"[red]{len(audit.findings)} finding(s)[/]"
    )
    console.print(
        f"{len(episodes)} episodes · {result.events} events captured · {result.archived} archived · "
        f"{result.outcomes} outcomes · {result.edge_cases} edge cases · audit of {audit.streams} streams: {verdict} · "
        f"{result.seconds:.1f} s"
    )


def as_json(reader: SqlEpisodeReader, result: Any) -> dict[str, Any]:
    return {
        "episodes": result.episodes,
        "events_captured": result.events,
        "events_archived": result.archived,
        "outcomes": result.outcomes,
        "edge_cases": [case.model_dump(mode="json") for case in reader.list_edge_cases(limit=1000)],
        "tool_error_rates": [rate.model_dump(mode="json") for rate in reader.tool_error_rates()],
        "audit_ok": result.audit_ok,
        "seconds": result.seconds,
    }
