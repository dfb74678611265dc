"""`loopline train eval | gate`: paired evaluation through the environment, and the gate's verdict.

Heavy imports happen inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from loopline.commands.train.options import (
    DEFAULT_ROOT,
    DEFAULT_STATE,
    BaseModel,
    DbUrl,
    Families,
    Publish,
    Root,
    State,
    base_folder,
    console,
    load_sets,
    parse_families,
    parse_seeds,
    progress_bar,
    registry_or_exit,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.progress import TaskID

    from engine import Policy
    from envs.rollout.episode import EpisodeRecord
    from schemas.gate import VerifierCardEvidence
    from schemas.tasks import Task
    from training.evaluate import EvalReport


def _policy(state: Path, base: Path, ref: str) -> Policy:
    from training.policies import load_policy
    from training.registry import adapter_folder

    if ref == "base":
        return load_policy(base, name=f"base:{base.name}")
    try:
        return load_policy(base, adapter_folder(state, ref), name=ref)
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None


def eval_(
    candidate: Annotated[str, typer.Argument(help="Adapter id or folder, or `base`.")],
    champion: Annotated[str, typer.Option("--champion", help="Adapter id or folder, or `base`.")] = "base",
    base_model: BaseModel = None,
    base_suite: Annotated[str, typer.Option("--base-suite", help="Base suite task set.")] = "rcm-base",
    base_seeds: Annotated[str, typer.Option("--base-seeds", help="Generator seeds of the base suite.")] = "0",
    promoted: Annotated[
        str | None, typer.Option("--promoted", help="Task set of promoted (or stand-in) tasks.")
    ] = None,
    families: Families = "",
    promoted_seeds: Annotated[
        str, typer.Option("--promoted-seeds", help="Generator seeds of promoted suites.")
    ] = "100-102",
    trials: Annotated[int, typer.Option("--trials", help="Environment seeds per task (pass^k).")] = 1,
    save: Annotated[
        bool, typer.Option("--save/--no-save", help="Store the report with the candidate.")
    ] = True,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the tables as markdown.")] = False,
    state: State = DEFAULT_STATE,
    root: Root = DEFAULT_ROOT,
) -> None:
    """pass@1 (and pass^k) per suite and family, paired against the champion, with 95% intervals.

    Suites: `base`; with --promoted and --families, `promoted` (those families) and `held-out`
    (the set's other families, never trained on)."""
    from training.data.sources import only_families, without_families
    from training.evaluate import EvalReport, pair, run_suite
    from training.registry import adapter_folder, store_report

    base = base_folder(state, base_model)
    suites: list[tuple[str, list[Task]]] = [
        ("base", [t for s in load_sets([base_suite], root, parse_seeds(base_seeds)) for t in s.tasks])
    ]
    if promoted:
        sets = load_sets([promoted], root, parse_seeds(promoted_seeds))
        chosen = parse_families(families)
        if chosen:
            suites.append(("promoted", [t for s in sets for t in only_families(s, chosen).tasks]))
            suites.append(("held-out", [t for s in sets for t in without_families(s, chosen).tasks]))
        else:
            suites.append(("promoted", [t for s in sets for t in s.tasks]))
    seeds = list(range(trials))
    mine, theirs = _policy(state, base, candidate), _policy(state, base, champion)
    paired = []
    with progress_bar() as bar:
        for name, tasks in suites:
            if not tasks:
                continue
            runs = []
            for who, policy in (("candidate", mine), ("champion", theirs)):
                job = bar.add_task(f"{name}: {who}", total=len(tasks) * len(seeds), info=policy.ref.model)
                runs.append(run_suite(policy, name, tasks, seeds, on_record=_advance(bar, job)))
            paired.append(pair(runs[0], runs[1]))
    report = EvalReport(candidate=mine.ref.model, champion=theirs.ref.model, seeds=seeds, suites=paired)
    print_report(report, markdown=markdown)
    if save and candidate != "base":
        store_report(adapter_folder(state, candidate), report)


def _advance(bar: Progress, job: TaskID) -> Callable[[EpisodeRecord], None]:
    def advance(_record: EpisodeRecord) -> None:
        bar.advance(job)

    return advance


SUITE_COLUMNS = ("suite", "tasks", "champion", "candidate", "Δ points", "95% CI", "pass^k", "p→f", "f→p")


def suite_rows(report: EvalReport) -> list[list[str]]:
    """One row per suite: pass@1 of both, the paired difference and its interval, pass^k, flips."""
    return [
        [
            s.suite,
            str(s.tasks),
            f"{s.champion:.1%}",
            f"{s.candidate:.1%}",
            f"{100 * s.delta:+.1f}",
            f"[{100 * s.ci_low:+.1f}, {100 * s.ci_high:+.1f}]",
            f"{s.champion_pass_hat_k:.0%}→{s.candidate_pass_hat_k:.0%}",
            str(s.pass_to_fail),
            str(s.fail_to_pass),
        ]
        for s in report.suites
    ]


def print_report(report: EvalReport, *, markdown: bool = False) -> None:
    """The paired table and the per-family table (rich, or markdown for a README)."""
    title = f"{report.candidate} vs champion {report.champion} (pass@1, paired, 95% CI)"
    family_rows = [
        [s.suite, row.family, str(row.tasks), f"{row.champion:.1%}", f"{row.candidate:.1%}"]
        for s in report.suites
        for row in s.families
    ]
    family_columns = ("suite", "family", "tasks", "champion", "candidate")
    if markdown:
        for heading, columns, rows in (
            (title, SUITE_COLUMNS, suite_rows(report)),
            ("per family", family_columns, family_rows),
        ):
            print(f"\n**{heading}**\n")
            print("| " + " | ".join(columns) + " |")
            print("|" + "---|" * len(columns))
            for row in rows:
                print("| " + " | ".join(row) + " |")
        return
    table = Table(title=title)
    for column in SUITE_COLUMNS:
        table.add_column(column, justify="left" if column == "suite" else "right")
    for row in suite_rows(report):
        table.add_row(*row)
    console.print(table)
    families = Table(title="per family (pass@1)")
    for column in family_columns:
        families.add_column(column)
    for row in family_rows:
        families.add_row(*row)
    console.print(families)


def gate(
    candidate: Annotated[str, typer.Argument(help="Adapter id or folder (evaluated with `train eval`).")],
    rules_file: Annotated[Path | None, typer.Option("--rules", help="JSON file of gate rules.")] = None,
    min_gain: Annotated[
        list[str] | None, typer.Option("--min-gain", help="SUITE=POINTS (repeatable).")
    ] = None,
    max_loss: Annotated[
        list[str] | None, typer.Option("--max-loss", help="SUITE=POINTS (repeatable).")
    ] = None,
    max_family_loss: Annotated[
        list[str] | None,
        typer.Option("--max-family-loss", help="SUITE=POINTS: largest drop of any one family (repeatable)."),
    ] = None,
    card: Annotated[
        Path | None,
        typer.Option(
            "--card", help="Verifier card JSON (`loopline verifiers report --json`); default: the repo's."
        ),
    ] = None,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """Judge an evaluated adapter by the gate's rules; store the verdict with it and on its stream
    in the adapter registry. Exit 1 when stopped."""
    from loopline.card.evidence import REPO_CARD, CardError, card_evidence
    from training.gate import DEFAULT_RULES, GateRule, GateRules, judge
    from training.registry import adapter_folder, champion_cards, read_evaluation, store_verdict

    try:
        folder = adapter_folder(state, candidate)
        report, _ = read_evaluation(folder)
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    if rules_file is not None:
        rules = GateRules.model_validate_json(rules_file.read_text())
    elif min_gain or max_loss or max_family_loss:
        rules = GateRules(
            rules=[GateRule(suite=s, min_gain=float(v)) for s, v in _pairs(min_gain)]
            + [GateRule(suite=s, max_loss=float(v)) for s, v in _pairs(max_loss)]
            + [GateRule(suite=s, max_family_loss=float(v)) for s, v in _pairs(max_family_loss)]
        )
    else:
        rules = DEFAULT_RULES
    cards: list[VerifierCardEvidence] = []
    if rules.verifier_card and (card is not None or REPO_CARD.is_file()):
        try:
            cards = card_evidence(card or REPO_CARD)
        except CardError as exc:
            console.print(f"[red]{exc}[/]")
            raise typer.Exit(2) from None
    registry = registry_or_exit(state, db_url, publish)
    verdict = judge(report, rules, cards=cards, champion_cards=champion_cards(registry, report.champion))
    try:
        store_verdict(folder, report, rules, verdict, registry)
    except RuntimeError as exc:  # stored, but the publisher failed
        console.print(
            f"[red]verdict stored, but not published ({exc})[/]; send it with `loopline adapters publish`"
        )
        raise typer.Exit(2) from None
    for check in verdict.checks:
        mark = "[green]pass[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{mark} {check.reason}")
    console.print(f"gate: {'[green]accepted[/]' if verdict.passed else '[red]stopped[/]'} ({folder.name})")
    if not verdict.passed:
        raise typer.Exit(1)


def _pairs(items: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for item in items or []:
        suite, eq, value = item.partition("=")
        try:
            float(value)
        except ValueError:
            eq = ""
        if not eq:
            raise typer.BadParameter(f"{item!r} is not SUITE=POINTS")
        out.append((suite, value))
    return out


def report(
    candidate: Annotated[str, typer.Argument(help="Adapter id or folder.")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the tables as markdown.")] = False,
    state: State = DEFAULT_STATE,
) -> None:
    """Print an adapter's stored evaluation and the gate's verdict, without running anything."""
    from training.registry import adapter_folder, read_evaluation

    try:
        stored, verdict = read_evaluation(adapter_folder(state, candidate))
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    print_report(stored, markdown=markdown)
    if verdict is None:
        console.print("gate: not judged yet (`loopline train gate`)")
        return
    for check in verdict.checks:
        console.print(f"{'pass' if check.passed else 'FAIL'}: {check.reason}")
    console.print(f"gate: {'accepted' if verdict.passed else 'stopped'}")
