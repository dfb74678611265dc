"""`loopline serve-policy`: the OpenAI-compatible policy server (transformers + peft, or the
structured reference policy) with LoRA adapters loaded at run time; `--vllm` prints the vLLM
settings that serve the same names in production. `loopline train serve` is the same command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from loopline.commands.train.options import DEFAULT_STATE, BaseModel, State, base_folder

console = Console()


def parse_adapters(items: list[str], state: Path) -> dict[str, Path]:
    """`NAME=FOLDER` pairs, or a bare registry id (its folder under STATE/adapters)."""
    out: dict[str, Path] = {}
    for item in items:
        label, eq, folder = item.partition("=")
        if not label or (eq and not folder):
            raise typer.BadParameter(f"{item!r} is not NAME=FOLDER or an adapter id")
        path = Path(folder) if eq else state / "adapters" / label
        if not (path / "adapter_config.json").is_file():
            raise typer.BadParameter(f"{path} holds no LoRA adapter (for {label!r})")
        if label in out:
            raise typer.BadParameter(f"adapter name {label!r} is given twice")
        out[label] = path
    return out


def _max_rank(adapters: dict[str, Path]) -> int:
    ranks = [int(json.loads((p / "adapter_config.json").read_text()).get("r", 16)) for p in adapters.values()]
    return max([16, *ranks])


def serve_policy(
    base_model: BaseModel = None,
    name: Annotated[str, typer.Option("--name", help="Model name the base answers as.")] = "rcm-structured",
    adapter: Annotated[
        list[str] | None,
        typer.Option("--adapter", help="NAME=FOLDER, or an adapter id under STATE/adapters (repeatable)."),
    ] = None,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8300,
    vllm: Annotated[
        bool, typer.Option("--vllm", help="Print the vLLM settings for the same names, and exit.")
    ] = False,
    max_loras: Annotated[int, typer.Option("--max-loras", help="vLLM: adapters on the GPU at once.")] = 4,
    state: State = DEFAULT_STATE,
) -> None:
    """Serve the policy over the OpenAI API (chat completions with tools, vLLM-style LoRA loading)."""
    base = base_folder(state, base_model)
    preload = parse_adapters(adapter or [], state)
    if vllm:
        from training.policies import STRUCTURED, model_kind
        from training.serve.vllm import VllmSettings

        settings = VllmSettings(
            base, name, preload, max_loras=max_loras, max_lora_rank=_max_rank(preload), port=port
        )
        if model_kind(base) == STRUCTURED:
            console.print(
                "# the structured reference policy is not a causal LM: vLLM serves a chat model's folder"
            )
        print(settings.shell())
        return
    import uvicorn

    from training.policies import policy_loader
    from training.serve.app import create_app

    try:
        server = create_app(policy_loader(base), name, preload)
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    console.print(f"serving {', '.join([name, *preload])} at http://{host}:{port}/v1")
    uvicorn.run(server, host=host, port=port, log_level="warning")


def register(app: typer.Typer, train: typer.Typer) -> None:
    """`loopline serve-policy`, and `loopline train serve` as its alias."""
    app.command("serve-policy")(serve_policy)
    train.command("serve", help="Alias of `loopline serve-policy`.")(serve_policy)
