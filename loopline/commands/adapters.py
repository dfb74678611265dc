"""`loopline adapters list | register | canary | observe | decide | promote | rollback | events | publish`: the adapter
release registry for operators (docs/release.md). Every change is stored with its event and its
evidence; `observe` counts the canary's production episodes from the archive and `decide` runs
the canary's sequential test and acts on it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from loopline.commands.train.options import DEFAULT_STATE, DbUrl, Publish, State

if TYPE_CHECKING:
    from training.release.manager import ReleaseManager

app = typer.Typer(help="Adapter releases: registry, canary, promotion and rollback.", no_args_is_help=True)
console = Console()


def open_manager(state: Path, db_url: str | None, publish: bool = False) -> ReleaseManager:
    """The registry (`loopline.release.registry`); a publisher that cannot be made ends the command."""
    from loopline.release.registry import PublishUnavailable, open_registry

    try:
        return open_registry(state, db_url, publish)
    except PublishUnavailable as exc:
        raise _fail(exc) from None


@contextmanager
def _release_errors(*also: type[Exception]) -> Iterator[None]:
    """A refused release change (or one of `also`) ends the command; any other `RuntimeError` comes
    from the publisher, after the change is stored."""
    from training.release.states import ReleaseError

    refused: tuple[type[Exception], ...] = (ReleaseError, *also)
    try:
        yield
    except refused as exc:
        raise _fail(exc) from None
    except RuntimeError as exc:
        raise _fail(
            RuntimeError(
                f"stored, but not published ({exc}); send the trail again with `loopline adapters publish`"
            )
        ) from None


def _fail(exc: Exception) -> typer.Exit:
    console.print(f"[red]{exc}[/]")
    return typer.Exit(2)


@app.command("list")
def list_(state: State = DEFAULT_STATE, db_url: DbUrl = None) -> None:
    """Every registered adapter, its state and its share of traffic."""
    manager = open_manager(state, db_url)
    table = Table(title="adapters")
    for column in ("adapter", "served name", "state", "share", "gate", "parent", "updated"):
        table.add_column(column)
    for r in manager.store.adapters():
        gate = "passed" if r.gate_passed else ("[red]forced[/]" if r.forced else "stopped")
        table.add_row(
            r.adapter_id,
            r.served_name,
            r.state,
            f"{r.traffic_share:.0%}",
            gate,
            r.parent_adapter_id or "-",
            r.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
        )
    console.print(table)


@app.command()
def register(
    adapter_id: Annotated[str, typer.Argument(help="Adapter id under STATE/adapters, or its folder.")],
    force: Annotated[bool, typer.Option("--force", help="Register although the gate stopped it.")] = False,
    served_name: Annotated[str | None, typer.Option("--served-name", help="Versioned serving name.")] = None,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Enter a gated adapter as a candidate (its stored verdict is read; `--force` overrides a stop)."""
    from training.lora import read_lineage
    from training.registry import adapter_folder, read_evaluation
    from training.release.states import ReleaseError

    with _release_errors(FileNotFoundError):
        folder = adapter_folder(state, adapter_id)
        _report, verdict = read_evaluation(folder)
        if verdict is None:
            raise ReleaseError(f"{folder.name} has no gate verdict: run `loopline train gate {folder.name}`")
        lineage = read_lineage(folder) if (folder / "lineage.json").is_file() else {}
        base = str((lineage.get("base_model") or {}).get("name") or "base")
        record = open_manager(state, db_url, publish).register(
            folder,
            base_model=base,
            gate_passed=verdict.passed,
            gate_reasons=verdict.reasons,
            force=force,
            served_name=served_name,
            parent_adapter_id=lineage.get("parent_adapter_id"),
        )
    console.print(f"{record.adapter_id} registered as a candidate (served as {record.served_name})")


@app.command()
def canary(
    adapter_id: str,
    share: Annotated[float, typer.Option("--share", help="Share of live work items, 0 < share < 1.")] = 0.1,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Route a share of live episodes to a candidate."""
    with _release_errors():
        open_manager(state, db_url, publish).deploy_canary(adapter_id, share)
    console.print(f"{adapter_id} is the canary for {share:.0%} of work items")


@app.command()
def decide(
    adapter_id: str,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the test; change nothing.")] = False,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Run the canary's sequential test and act on it: promote, keep collecting, or roll back."""
    manager = open_manager(state, db_url, publish and not dry_run)
    with _release_errors():
        result = manager.evaluate(adapter_id) if dry_run else manager.decide(adapter_id)
    console.print(f"[bold]{result.decision}[/]: {result.reason}")


@app.command()
def observe(
    archive_url: Annotated[
        str,
        typer.Option(
            "--archive-url", envvar="LOOPLINE_DB_URL", help="The event archive the bridge's episodes are in."
        ),
    ] = "sqlite:///.loopline/archive.db",
    domain: Annotated[
        str | None, typer.Option("--domain", help="Whose outcome kinds judge (default: all).")
    ] = None,
    require_outcome: Annotated[
        bool,
        typer.Option(
            "--require-outcome/--no-require-outcome",
            help="Count an episode only once a business outcome is known (a verifier alone never decides).",
        ),
    ] = True,
    then_decide: Annotated[
        bool, typer.Option("--decide/--no-decide", help="Run the test after counting.")
    ] = True,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Count the live canary's finished production episodes from the archive (each once: by its
    verdicts and later outcomes), then run the sequential test and act on it."""
    from bridge.store import SqlEventArchive
    from loopline.release.observe import observe_episodes, served_episodes

    manager = open_manager(state, db_url, publish)
    try:
        archive = SqlEventArchive(archive_url)
        episodes = served_episodes(archive.iter_streams())
    except Exception as exc:  # the archive's driver errors vary (a bad URL, a missing file)
        raise _fail(RuntimeError(f"cannot read the archive at {archive_url}: {exc}")) from None
    report = observe_episodes(manager, episodes.values(), domain=domain, require_outcome=require_outcome)
    if report.canary_id is None:
        console.print("no canary is live: nothing to count")
        return
    console.print(
        f"{report.canary_id}: {report.counted} episodes counted now, {report.not_counted} counted before or "
        f"not served by champion or canary, {report.waiting} waiting for a verdict or an outcome"
    )
    if then_decide:
        with _release_errors():
            result = manager.decide(report.canary_id)
        console.print(f"[bold]{result.decision}[/]: {result.reason}")


@app.command()
def promote(
    adapter_id: str,
    reason: Annotated[
        str, typer.Option("--reason", help="Why (kept in the event).")
    ] = "promoted by an operator",
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Make the canary the champion by hand (the event says an operator decided)."""
    manager = open_manager(state, db_url, publish)
    with _release_errors():
        evidence = manager.evaluate(adapter_id).evidence()
        manager.promote(adapter_id, decided_by="operator", reason=reason, evidence=evidence)
    console.print(f"{adapter_id} is the champion")


@app.command()
def rollback(
    adapter_id: str,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the event).")],
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Withdraw the canary, or the champion (the one it replaced serves again)."""
    manager = open_manager(state, db_url, publish)
    with _release_errors():
        record = manager.roll_back(adapter_id, reason=reason, metrics=manager.evaluate(adapter_id).evidence())
    champion = manager.routing().champion
    console.print(
        f"{record.adapter_id} rolled back; serving: {champion.adapter_id if champion else 'the base model'}"
    )


@app.command()
def events(
    adapter_id: Annotated[str | None, typer.Argument(help="One adapter's trail (default: all).")] = None,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
) -> None:
    """The release event trail as CloudEvents JSON lines."""
    for doc in open_manager(state, db_url).events(adapter_id):
        print(json.dumps(doc, sort_keys=True))


@app.command("publish")
def publish_(
    adapter_id: Annotated[str | None, typer.Argument(help="One adapter's trail (default: all).")] = None,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
) -> None:
    """Send the stored release events to Kafka again, MACed (the archive keeps each event once):
    what to run after a decision whose events were stored but not delivered."""
    from loopline.kafka.publisher import signed_publisher
    from training.release.manager import SOURCE

    manager = open_manager(state, db_url)
    sent = 0
    try:
        publisher = signed_publisher(SOURCE)
        try:
            for doc in manager.events(adapter_id):
                publisher(doc)
                sent += 1
        finally:
            publisher.close()
    except Exception as exc:  # the Kafka client's errors vary
        raise _fail(RuntimeError(f"release events not delivered: {exc}")) from None
    console.print(f"{sent} release events sent")
