"""`loopline envs validate|generate|rollout|list`: task sets, gold validation and baseline rollouts."""

from __future__ import annotations

import functools
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from schemas.tasks import Task

app = typer.Typer(help="Environments: task sets, gold validation, scripted rollouts.", no_args_is_help=True)
console = Console()

DEFAULT_ROOT = Path(".loopline/tasksets")
DEFAULT_SETS = ["rcm-base", "rcm-edge", "rcm-queue"]

TaskSets = typer.Option(
    None, "--task-set", "-t", help="NAME[@VERSION] in --root, a built-in set, or a .jsonl file."
)
Root = typer.Option(DEFAULT_ROOT, "--root", help="Task-set registry folder.")
Seed = typer.Option(0, "--seed", help="Seed for built-in (generated) task sets and environments.")
By = typer.Option(
    "carc",
    "--by",
    help="Tag prefix that names a task's category (tasks without `carc:` tags: `edge`, else `recipe`).",
)


def _load(specs: list[str] | None, root: Path, seed: int) -> list[tuple[str, list[Task]]]:
    from envs.catalog import resolve
    from envs.tasksets import TaskSetError

    loaded = []
    for spec in specs or DEFAULT_SETS:
        try:
            loaded.append(resolve(spec, root=root, seed=seed))
        except (TaskSetError, KeyError) as exc:
            console.print(f"[red]cannot load {spec}:[/] {exc}")
            raise typer.Exit(2) from None
    return loaded


def _prefix(tasks: list[Task], by: str) -> str:
    """`by`, unless it is the rcm default and no task carries it: then the family tag the tasks
    have (`edge`, else `recipe`, as credit tasks are tagged)."""
    if by != "carc" or any(tag.startswith("carc:") for t in tasks for tag in t.tags):
        return by
    for prefix in ("edge", "recipe"):
        if any(tag.startswith(f"{prefix}:") for t in tasks for tag in t.tags):
            return prefix
    return by


def _advance(progress: Progress, bar: TaskID, _record: object) -> None:
    progress.advance(bar)


@app.command("list")
def list_() -> None:
    """Built-in task sets and the scripted policies of each domain."""
    from envs.catalog import policies, task_set_names
    from envs.domain import DOMAINS

    for name, desc in task_set_names().items():
        console.print(f"[bold]{name}[/]: {desc}")
    for domain in DOMAINS.names():
        for name, entry in policies(domain).items():
            console.print(f"  policy [bold]{domain}/{name}[/]: {entry.description}")


@app.command()
def generate(
    task_set: list[str] = TaskSets,
    root: Path = Root,
    seed: int = Seed,
    notes: str = typer.Option("", "--notes"),
) -> None:
    """Generate built-in task sets and publish each as a new, immutable version under --root."""
    from envs.catalog import generate as make
    from envs.tasksets import TaskSetRegistry

    registry = TaskSetRegistry(root)
    for name in task_set or DEFAULT_SETS:
        tasks = make(name, seed)
        manifest = registry.publish(name, tasks, notes or f"generated with seed {seed}")
        console.print(
            f"published [bold]{name}[/] v{manifest.version}: {len(tasks)} tasks, hash {manifest.content_hash[:12]}"
        )


@app.command()
def validate(task_set: list[str] = TaskSets, root: Path = Root, seed: int = Seed, by: str = By) -> None:
    """Replay every task's gold solution (must score 1.0) and the empty trajectory (must score 0),
    and run the domain's own task check (rcm: every remittance passes pyx12, X12 835 005010X221A1)."""
    from rich.progress import track

    from envs.domain import DOMAINS
    from envs.rollout.report import category_of
    from envs.validate import validate_task

    failures, notes = 0, set[str]()
    requested = by
    for label, tasks in _load(task_set, root, seed):
        by = _prefix(tasks, requested)
        totals: Counter[str] = Counter()
        valid: Counter[str] = Counter()
        bad = []
        for task in track(tasks, description=f"validating {label}", console=console, transient=True):
            result = validate_task(task, seed=seed)
            check = DOMAINS.get(task.domain).task_check if task.domain in DOMAINS.names() else None
            if check is not None:
                notes.add(check.passed)
                if own := check.problems(task):
                    result = result.model_copy(update={"problems": (*result.problems, *own)})
            category = category_of(result.tags, by)
            totals[category] += 1
            valid[category] += result.ok
            if not result.ok:
                bad.append(result)
        table = Table(title=f"gold validation: {label}")
        for column in (by, "tasks", "valid", "invalid"):
            table.add_column(column, justify="left" if column == by else "right")
        for category in sorted(totals, key=lambda c: (not c.isdigit(), int(c) if c.isdigit() else 0, c)):
            table.add_row(
                category, str(totals[category]), str(valid[category]), str(totals[category] - valid[category])
            )
        table.add_row("all", str(sum(totals.values())), str(sum(valid.values())), str(len(bad)), style="bold")
        console.print(table)
        for result in bad[:20]:
            console.print(f"[red]{result.task_id}[/]: " + " | ".join(result.problems))
        failures += len(bad)
    if failures:
        console.print(f"[red]{failures} task(s) failed gold validation[/]")
        raise typer.Exit(1)
    held = "".join(f", and {note}" for note in sorted(notes))
    console.print(f"[green]every gold solution scores 1.0 and doing nothing scores 0{held}[/]")


@app.command()
def rollout(
    policy: str = typer.Option("reference", "--policy", "-p", help="Scripted policy of the tasks' domain."),
    task_set: list[str] = TaskSets,
    root: Path = Root,
    seed: int = Seed,
    by: str = By,
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Worker processes."),
    events: Path = typer.Option(None, "--events", help="JSONL file for the rollout events."),
) -> None:
    """Run a scripted policy over task sets, record every episode as events, print pass rates."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from envs.catalog import policy as find_policy
    from envs.rollout import JsonlEventSink, RolloutConfig, run_rollouts, stats_table, summarize

    runs = []
    for label, tasks in _load(task_set, root, seed):
        domains = {t.domain for t in tasks}
        if len(domains) != 1:
            console.print(f"[red]{label} mixes domains {sorted(domains)}[/]")
            raise typer.Exit(2)
        try:
            runs.append((label, tasks, find_policy(domains.pop(), policy)))
        except KeyError as exc:
            console.print(f"[red]{exc.args[0]}[/]")
            raise typer.Exit(2) from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    sink = JsonlEventSink(events or Path(".loopline/rollouts") / f"{policy}-{stamp}.jsonl")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with sink:
        for label, tasks, chosen in runs:
            with Progress(*columns, console=console, transient=True) as progress:
                bar = progress.add_task(f"{policy} on {label}", total=len(tasks))
                records = run_rollouts(
                    tasks,
                    chosen,
                    workers=workers,
                    config=RolloutConfig(seed=seed),
                    sink=sink,
                    on_record=functools.partial(_advance, progress, bar),
                )
            prefix = _prefix(tasks, by)
            console.print(
                stats_table(summarize(records, prefix), title=f"{policy} on {label}", prefix=prefix)
            )
    console.print(f"events: {sink.path}")
