"""`loopline verifiers report`: the verifier card from a real run; `loopline verifiers redteam`: a
model attacks the verifiers through any OpenAI-compatible endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def report(
    json_: Annotated[bool, typer.Option("--json", help="Print the card as JSON.")] = False,
    domain: Annotated[
        str, typer.Option(help="Domain whose verifier the card covers: rcm or credit.")
    ] = "rcm",
    seed: Annotated[int, typer.Option(help="Seed of the generated task sets.")] = 0,
    per_carc: Annotated[int, typer.Option(help="rcm-base tasks per CARC row.")] = 19,
    per_kind: Annotated[int, typer.Option(help="Edge tasks per edge kind (rcm-edge, credit-edge).")] = 8,
    queues: Annotated[int, typer.Option(help="rcm-queue work queues.")] = 48,
    per_recipe: Annotated[int, typer.Option(help="credit-base tasks per recipe.")] = 25,
    workers: Annotated[int, typer.Option(help="Processes for mutants and exploits.")] = 2,
    db_url: Annotated[
        str | None,
        typer.Option(
            "--db-url", help="Archive with expert labels and outcomes (optional).", show_default=False
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON card here.")] = None,
) -> None:
    """The verifier card: validation, expert set, mutation score, exploits, agreement, outcomes.

    Exits 1 when the admitted verifier misses a bar (the card says which)."""
    from loopline.card.build import build_card, write_json
    from loopline.card.render import render

    def progress(step: str) -> None:
        err_console.print(f"[dim]{step}…[/]")

    card = build_card(
        domain=domain,
        seed=seed,
        per_carc=per_carc,
        per_kind=per_kind,
        queues=queues,
        per_recipe=per_recipe,
        workers=workers,
        db_url=db_url,
        progress=progress,
    )
    if out is not None:
        write_json(card, out)
    if json_:
        typer.echo(card.model_dump_json(indent=2))
    else:
        render(card, console)
    if card.failing:
        raise typer.Exit(1)


def redteam(
    base_url: Annotated[
        str, typer.Option(help="OpenAI-compatible endpoint root, e.g. http://127.0.0.1:8000/v1.")
    ],
    model: Annotated[str, typer.Option(help="Model name as the server knows it.")],
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the API key (never the key itself).")
    ] = None,
    samples: Annotated[int, typer.Option(min=1, max=16, help="Proposals asked for per task.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the generated task sets.")] = 0,
    per_carc: Annotated[int, typer.Option(help="rcm-base tasks per CARC row.")] = 1,
    per_kind: Annotated[int, typer.Option(help="rcm-edge tasks per edge kind.")] = 1,
    findings: Annotated[Path, typer.Option(help="JSONL file the findings are appended to.")] = Path(
        ".loopline/redteam/findings.jsonl"
    ),
) -> None:
    """Let a model attack the verifiers: it proposes calls for each task; every proposal that scores
    above doing nothing is recorded with its verdict. Exits 1 when one wins with a wrong outcome."""
    import os

    from envs.adversarial.llm_attacker import OpenAICompatibleAttacker
    from envs.adversarial.redteam import run_redteam
    from envs.rcm.tasks import generate_base, generate_edge

    api_key = os.environ.get(api_key_env) if api_key_env else None
    attacker = OpenAICompatibleAttacker(base_url=base_url, model=model, api_key=api_key, samples=samples)
    tasks = generate_base(seed, per_carc) + generate_edge(seed, per_kind)
    with console.status(f"{attacker.name} attacking {len(tasks)} tasks…"):
        result = run_redteam(tasks, attacker, ("rcm.v1", "rcm.v2"), findings_path=findings)
    wrong = [f for f in result.findings if not f.outcome_matches_gold]
    console.print(
        f"{result.proposals} proposals on {result.tasks} tasks: {len(result.findings)} above doing nothing, "
        f"{len(wrong)} of them with a wrong outcome; findings in {findings}",
        highlight=False,
    )
    for error in result.errors[:10]:
        err_console.print(f"[yellow]{error}[/]", highlight=False)
    if any(f.verifier == "rcm.v2" for f in wrong):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Mount `report` and `redteam` on the `verifiers` sub-app."""
    app.command("report")(report)
    app.command("redteam")(redteam)
