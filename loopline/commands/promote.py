"""`loopline promote list | show | retry`: operators' view of edge-case promotions.

`list` reads the draft store (and, with `--temporal`, the workflows Temporal knows); `show` prints
one draft's status, fidelity, mismatches, suggestion and gate report; `retry` starts a refused (or
failed) promotion again, under the same workflow id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from workflows.settings import WorkflowsSettings

console = Console()
app = typer.Typer(help="Edge-case promotions: drafts, reviews, workflows.", no_args_is_help=True)
DraftsDir = Annotated[Path | None, typer.Option(help="Draft store (default LOOPLINE_DRAFTS_DIR).")]


def _settings(drafts_dir: Path | None) -> WorkflowsSettings:
    from workflows.settings import WorkflowsSettings

    return WorkflowsSettings.model_validate({"drafts_dir": drafts_dir} if drafts_dir else {})


@app.command("list")
def list_(
    drafts_dir: DraftsDir = None,
    temporal: Annotated[bool, typer.Option(help="Also list the workflows Temporal knows.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
) -> None:
    """Every draft and where its promotion stands, newest first."""
    import asyncio

    from adapters.drafting.store import DraftStore

    settings = _settings(drafts_dir)
    store = DraftStore(settings.drafts_dir)
    rows = []
    for status in store.statuses():
        draft = store.draft(status.draft_id)
        rows.append(
            {
                "draft_id": status.draft_id,
                "stage": status.stage,
                "round": status.round,
                "claim": draft.work_item.item_id if draft else None,
                "rule": draft.rule if draft else None,
                "fidelity": draft.fidelity.share if draft else None,
                "workflow_id": status.workflow_id,
                "task": f"{status.task_id} ({status.task_set} v{status.task_set_version})"
                if status.task_id
                else None,
                "updated": status.updated_at.isoformat(timespec="seconds"),
            }
        )
    workflows = []
    if temporal:
        from workflows.promotion.client import connect, promotions

        async def fetch() -> list[dict[str, object]]:
            return await promotions(await connect(settings.temporal_address, settings.temporal_namespace))

        workflows = asyncio.run(fetch())
    if as_json:
        console.print_json(json.dumps({"drafts": rows, "workflows": workflows}, default=str))
        return
    table = Table("draft", "claim", "rule", "fidelity", "stage", "round", "task", "updated", title="drafts")
    for r in rows:
        fidelity = "" if r["fidelity"] is None else f"{r['fidelity']:.2f}"
        table.add_row(
            str(r["draft_id"]),
            str(r["claim"]),
            str(r["rule"]),
            fidelity,
            str(r["stage"]),
            str(r["round"]),
            str(r["task"] or ""),
            str(r["updated"]),
        )
    console.print(table)
    if temporal:
        wf = Table("workflow", "status", "started", "closed", title="promotion workflows (Temporal)")
        for w in workflows:
            wf.add_row(str(w["workflow_id"]), str(w["status"]), str(w["started"]), str(w["closed"] or ""))
        console.print(wf)


@app.command("show")
def show(draft_id: str, drafts_dir: DraftsDir = None) -> None:
    """One draft: status, fidelity and every mismatch, the suggestion, the latest gate report."""
    from adapters.drafting.store import DraftStore, DraftStoreError

    settings = _settings(drafts_dir)
    store = DraftStore(settings.drafts_dir)
    try:
        status, draft = store.status(draft_id), store.draft(draft_id)
    except DraftStoreError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    if status is None or draft is None:
        console.print(f"[red]error:[/] no draft {draft_id!r} in {settings.drafts_dir}")
        raise typer.Exit(1)
    console.print(
        f"[bold]{draft.draft_id}[/] claim {draft.work_item.item_id}, rule {draft.rule}, "
        f"episode {draft.source_episode_id}"
    )
    console.print(f"stage [bold]{status.stage}[/] (round {status.round}), workflow {status.workflow_id}")
    f = draft.fidelity
    console.print(
        f"fidelity {f.share:.2f}: {f.reproduced}/{f.calls} calls reproduced, {f.injected_faults} live faults replayed"
    )
    for m in f.mismatches:
        console.print(f"  mismatch #{m.index} {m.tool}: {m.what}", highlight=False)
    if draft.refusal:
        console.print(f"[red]refused:[/] {draft.refusal}")
    suggestion = store.suggestion(draft_id)
    if suggestion:
        console.print(
            f"suggested resolution: {suggestion.resolution} ({'solved' if suggestion.solved else 'not solved'})"
        )
    report = store.report(status.report_id) if status.report_id else None
    if report:
        console.print(
            f"gates: {'held' if report.ok else 'failed'}; gold {report.gold_score}, nothing {report.noop_score}"
        )
        for p in report.problems:
            console.print(f"  - {p}", highlight=False)
    if status.task_id:
        console.print(f"published: {status.task_id} in {status.task_set} v{status.task_set_version}")


@app.command("retry")
def retry(draft_id: str, drafts_dir: DraftsDir = None) -> None:
    """Start a refused promotion again (same workflow id; allowed only after a failure)."""
    import asyncio

    from adapters.drafting.store import DraftStore
    from workflows.promotion.client import connect, start_promotion
    from workflows.promotion.models import ReviewTimers

    settings = _settings(drafts_dir)
    store = DraftStore(settings.drafts_dir)
    status, draft = store.status(draft_id), store.draft(draft_id)
    if status is None or draft is None:
        console.print(f"[red]error:[/] no draft {draft_id!r} in {settings.drafts_dir}")
        raise typer.Exit(1)

    async def start() -> bool:
        client = await connect(settings.temporal_address, settings.temporal_namespace)
        return await start_promotion(
            client,
            fingerprint=draft.fingerprint,
            episode_id=draft.source_episode_id,
            rule=draft.rule,
            queue=settings.task_queue,
            timers=ReviewTimers(
                reminder_after_s=settings.review_reminder_s, escalate_after_s=settings.review_escalate_s
            ),
        )

    if not asyncio.run(start()):
        console.print(
            f"[yellow]{status.workflow_id} is running or finished without failing; nothing to retry[/]"
        )
        raise typer.Exit(1)
    console.print(f"restarted {status.workflow_id}")
