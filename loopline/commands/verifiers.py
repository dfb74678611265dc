"""`loopline verifiers label|agreement|outcomes`: expert labels, and how far each verifier is trusted.

Labels and verdicts live in the event archive's database (`LOOPLINE_DB_URL`, or `--db-url`): labels
in their own table, verdicts as archived `verifier.scored` events (`loopline.card.agreement`
pairs them). Heavy imports happen inside the commands.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="Verifiers: expert labels, agreement and business outcomes.", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)

DbUrl = Annotated[
    str | None, typer.Option("--db-url", help="Archive URL (default LOOPLINE_DB_URL).", show_default=False)
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


class Source(StrEnum):
    reviewer = "reviewer"
    expert_set = "expert_set"


def _db_url(db_url: str | None) -> str:
    from pydantic import ValidationError

    from bridge.store.engine import validate_sql_url
    from loopline.streams.settings import StreamsSettings

    try:
        return validate_sql_url(db_url or StreamsSettings().db_url)
    except (ValidationError, ValueError) as exc:
        err_console.print(f"[red]error:[/] invalid archive URL: {exc}", highlight=False)
        raise typer.Exit(2) from None


def _archive_engine(url: str) -> Any:
    from bridge.store import SqlEventArchive

    archive = SqlEventArchive(url)
    if not archive.exists():
        err_console.print(f"[red]error:[/] no event archive at {url} (the streams worker creates it)")
        raise typer.Exit(1)
    return archive.engine


@app.command()
def label(
    episode: Annotated[str, typer.Argument(help="The episode id of the trajectory judged.")],
    passed: Annotated[bool, typer.Option("--pass/--fail", help="Correct work, or not.")],
    reason: Annotated[str, typer.Option("--reason", help="Why, in words another expert can check.")],
    reviewer: Annotated[str, typer.Option("--reviewer", help="Who judged it.")],
    verifier: Annotated[
        str | None, typer.Option("--verifier", help="The verifier whose verdict you saw (omit if blind).")
    ] = None,
    db_url: DbUrl = None,
) -> None:
    """Label an archived episode pass or fail, with a reason; relabelling replaces your label."""
    from pydantic import ValidationError

    from bridge.store import SqlEpisodeReader
    from bridge.store.labels import ExpertLabel, SqlLabelStore
    from bridge.store.verdicts import SqlVerdictReader

    engine = _archive_engine(_db_url(db_url))
    detail = SqlEpisodeReader(engine).get_episode(episode)
    if detail is None:
        err_console.print(f"[red]error:[/] no episode {episode!r} in the archive")
        raise typer.Exit(1)
    scored = SqlVerdictReader(engine).verdicts([episode]).get(episode, [])
    task_id = detail.episode.task_id or next((v.task_id for v in scored if v.task_id), None)
    try:
        new = ExpertLabel(
            subject=episode,
            reviewer=reviewer,
            label="pass" if passed else "fail",
            reason=reason,
            task_id=task_id,
            verifier=verifier,
        )
    except ValidationError as exc:
        err_console.print(f"[red]error:[/] {'; '.join(e['msg'] for e in exc.errors())}", highlight=False)
        raise typer.Exit(2) from None
    store = SqlLabelStore(engine)
    store.create_schema()
    replaced = store.put(new)
    console.print(f"{'relabelled' if replaced else 'labelled'} {episode} {new.label} by {reviewer}")


@app.command()
def agreement(
    json_: Json = False,
    db_url: DbUrl = None,
    min_kappa: Annotated[
        float | None,
        typer.Option(
            help="Kappa a verifier needs to be fit for training [default: 0.8].", show_default=False
        ),
    ] = None,
    min_labels: Annotated[
        int | None,
        typer.Option(
            help="Labels a verifier needs to be fit for training [default: 50].", show_default=False
        ),
    ] = None,
    source: Annotated[
        Source | None, typer.Option("--source", help="Only labels of this source.", show_default=False)
    ] = None,
) -> None:
    """Per verifier: labels, accuracy, Cohen's kappa, false-pass rate, and fit or not for training."""
    from loopline.card.agreement import archived_agreement

    url = _db_url(db_url)
    _archive_engine(url)
    gate: dict[str, Any] = {"min_kappa": min_kappa, "min_labels": min_labels, "source": source}
    try:
        report = archived_agreement(url, **{key: value for key, value in gate.items() if value is not None})
    except ValueError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    if json_:
        typer.echo(report.model_dump_json(indent=2))
        return
    if not report.verifiers:
        console.print(f"{report.labels} labels; none on an episode a verifier scored")
        return
    table = Table(title=f"expert agreement ({report.labels} labels, {report.unscored_labels} unscored)")
    for column in ("verifier", "n", "accuracy", "kappa", "false pass", "false fail", "training"):
        table.add_column(column, justify="left" if column in ("verifier", "training") else "right")
    for summary in report.verifiers:
        a, fit = summary.agreement, summary.fitness
        table.add_row(
            a.verifier,
            str(a.n),
            _rate(a.accuracy),
            _rate(a.kappa),
            _rate(a.false_pass_rate),
            _rate(a.false_fail_rate),
            "[green]fit[/]" if fit.fit else "[red]not fit[/]",
        )
    console.print(table)
    for summary in report.verifiers:
        console.print(f"{summary.agreement.verifier}: {summary.fitness.reason}", highlight=False)
    who = ", ".join(f"{r.reviewer} ({r.labels})" for r in report.reviewers) or "none"
    console.print(f"reviewers: {who}", highlight=False)
    between = report.between_reviewers
    if between is not None and between.n:
        console.print(
            f"between reviewers: kappa {_rate(between.kappa)} on {between.n} pairs", highlight=False
        )


@app.command()
def outcomes(json_: Json = False, db_url: DbUrl = None) -> None:
    """Per verifier: how well its scores predict later business outcomes (AUC, agreement)."""
    from loopline.card.agreement import archived_outcomes

    url = _db_url(db_url)
    _archive_engine(url)
    report = archived_outcomes(url)
    if json_:
        typer.echo(report.model_dump_json(indent=2))
        return
    if report.note:
        console.print(report.note)
        return
    table = Table(title=f"business outcomes ({report.episodes} scored episodes with outcomes)")
    for column in ("verifier", "n", "good", "bad", "AUC", "accuracy", "kappa", "false pass"):
        table.add_column(column, justify="left" if column == "verifier" else "right")
    for c in report.verifiers:
        a = c.agreement
        table.add_row(
            c.verifier,
            str(c.n),
            str(c.good),
            str(c.bad),
            _rate(c.auc),
            _rate(a.accuracy),
            _rate(a.kappa),
            _rate(a.false_pass_rate),
        )
    console.print(table)


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
