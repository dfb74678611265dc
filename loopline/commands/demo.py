"""`loopline demo`: run the bridge end to end on the embedded stack and report what it captured."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    state_dir: Annotated[Path, typer.Option(help="State folder of the embedded stack.")] = Path(".loopline"),
    keep_stack: Annotated[bool, typer.Option(help="Leave a stack this demo started running.")] = False,
    workers: Annotated[int, typer.Option(min=1, max=16, help="Episodes run at once.")] = 4,
    review: Annotated[
        bool,
        typer.Option(
            help="A person reviews the task drafts in the review page (no simulated reviewer); "
            "after the run the console stays up (episodes, drafts, adapters) until Ctrl-C."
        ),
    ] = False,
    domain: Annotated[
        str,
        typer.Option(
            help="rcm: a denial queue against the RCM sandbox; credit: credit packages against the deal system."
        ),
    ] = "rcm",
    improvement: Annotated[
        bool,
        typer.Option(help="Run the improvement stage: a LoRA cycle, a second day, the canary's decision."),
    ] = True,
    corrupt: Annotated[
        bool,
        typer.Option(
            help="The improvement cycle trains a deliberately bad adapter, forced through the gate; "
            "the demo succeeds only when the canary's test rolls it back."
        ),
    ] = False,
) -> None:
    """Work a denial queue through the bridge against a faulty live system; capture, project, detect, audit;
    then check the verifier that scores training (a small verifier card); then promote the run's edge cases
    into tasks, reviewed by a simulated reviewer (or by you, with --review); then an improvement cycle and a
    second production day whose canary is promoted or rolled back by a sequential test."""
    from loopline.demo.domains import demo_domains
    from loopline.demo.run import run_demo
    from loopline.stack import StackError

    if domain not in demo_domains():
        console.print(f"[red]error:[/] no demo for domain {domain!r}; choose {' or '.join(demo_domains())}")
        raise typer.Exit(2)
    try:
        result = run_demo(
            console,
            state_dir=state_dir,
            keep_stack=keep_stack,
            workers=workers,
            review=review,
            domain=domain,
            improvement=improvement,
            corrupt=corrupt,
        )
    except StackError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    if result.improvement_problems:
        console.print("[red]the improvement stage did not close the loop; exit 1[/]")
    if result.report is not None:
        console.print(f"report: {result.report} (open it in a browser; it needs no network)")
    if review:
        from loopline.demo.console import hold_console

        hold_console(console, result.workdir, result.db_url)
    if (
        not result.audit_ok
        or result.archived < result.events
        or not result.verifier_bars_met
        or result.improvement_problems
    ):
        raise typer.Exit(1)
