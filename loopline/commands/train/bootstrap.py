"""`loopline train bootstrap`: the embedded stack's reference policy, trained from scratch."""

from __future__ import annotations

from typing import Annotated

import typer

from loopline.commands.train.options import (
    DEFAULT_ROOT,
    DEFAULT_STATE,
    Root,
    Seeds,
    State,
    console,
    loop_bar,
    parse_seeds,
    progress_bar,
    stage_bars,
)


def bootstrap(
    seeds: Seeds = "1-6",
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the data.")] = 10,
    d_model: Annotated[int, typer.Option("--d-model", help="Width of the transformer.")] = 96,
    layers: Annotated[int, typer.Option("--layers", help="Transformer layers.")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Training seed.")] = 0,
    name: Annotated[
        str, typer.Option("--name", help="Model folder name under STATE/models.")
    ] = "rcm-structured",
    head: Annotated[
        str,
        typer.Option(
            "--head",
            help="Decision head: templates (whole calls from the training data) or compositional "
            "(each call built from its tool's schema).",
        ),
    ] = "templates",
    state: State = DEFAULT_STATE,
    root: Root = DEFAULT_ROOT,
) -> None:
    """Train the embedded stack's reference policy from scratch (cached: reused when already built)."""
    from training.loop import LoopConfig
    from training.structured.bootstrap import BootstrapSpec
    from training.structured.bootstrap import bootstrap as build

    spec = BootstrapSpec(
        seeds=tuple(parse_seeds(seeds)),
        d_model=d_model,
        layers=layers,
        loop=LoopConfig(epochs=epochs, batch_size=32, lr=2e-3, seed=seed),
    )
    with progress_bar() as bar:
        stage = stage_bars(bar)
        job = bar.add_task("training", total=None, info="")
        folder = build(
            spec,
            root=state,
            taskset_root=root,
            name=name,
            progress=stage,
            on_step=lambda report: loop_bar(bar, job, report),
            head=head,
        )
    console.print(f"reference policy ready in {folder}")
