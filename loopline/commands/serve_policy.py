"""`loopline serve-policy`: the OpenAI-compatible policy server (transformers + peft, or the
structured reference policy) with LoRA adapters loaded at run time; `--vllm` prints the vLLM
settings that serve the same names in production. `loopline train serve` is the same command.

The server needs two keys (`--api-key` to serve, `--release-key` to load and unload), loads
adapters only from under `--adapter-root` and only with the fingerprint the release store
registered for their served name (`training.serve.access`, `training.serve.pool`).

`loopline policy-gate` puts the same keys and checks in front of a vLLM server that listens on the
pod's loopback with a key only the gate holds (`training.serve.gate`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from loopline.commands.train.options import DEFAULT_STATE, BaseModel, DbUrl, State, base_folder
from training.serve.access import AccessKeys

console = Console()

ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="LOOPLINE_POLICY_API_KEY",
        help="Bearer key for inference, the model list, health and metrics (16+ characters).",
        show_default=False,
    ),
]
ReleaseKey = Annotated[
    str | None,
    typer.Option(
        "--release-key",
        envvar="LOOPLINE_POLICY_RELEASE_KEY",
        help="Bearer key for loading and unloading adapters: the release path's alone (16+ characters).",
        show_default=False,
    ),
]
AdapterRoot = Annotated[
    Path | None,
    typer.Option(
        "--adapter-root",
        envvar="LOOPLINE_POLICY_ADAPTER_ROOT",
        help="The only folder adapters load from (default STATE/adapters).",
    ),
]


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
    api_key: ApiKey = None,
    release_key: ReleaseKey = None,
    adapter_root: AdapterRoot = None,
    db_url: DbUrl = None,
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

    keys = _access_keys(api_key, release_key)
    registered = _registered(state, db_url)

    try:
        server = create_app(
            policy_loader(base),
            name,
            preload,
            keys=keys,
            adapter_root=adapter_root or state / "adapters",
            registered=registered,
        )
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    console.print(f"serving {', '.join([name, *preload])} at http://{host}:{port}/v1")
    uvicorn.run(server, host=host, port=port, log_level="warning")


def policy_gate(
    upstream: Annotated[
        str, typer.Option("--upstream", help="The vLLM server behind the gate (its loopback address).")
    ] = "http://127.0.0.1:8001",
    upstream_key: Annotated[
        str | None,
        typer.Option(
            "--upstream-key",
            envvar="LOOPLINE_POLICY_UPSTREAM_KEY",
            help="vLLM's own key (its VLLM_API_KEY), held by the gate alone.",
            show_default=False,
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="The base model's served name.")] = "loopline-rcm",
    private: Annotated[
        Path,
        typer.Option(
            "--copy-root",
            envvar="LOOPLINE_POLICY_COPY_ROOT",
            help="Where checked copies of adapters are kept for vLLM to read (a folder the two share).",
        ),
    ] = Path("/var/lib/loopline/adapter-copies"),
    host: Annotated[str, typer.Option("--host")] = "0.0.0.0",
    port: Annotated[int, typer.Option("--port")] = 8000,
    api_key: ApiKey = None,
    release_key: ReleaseKey = None,
    adapter_root: AdapterRoot = None,
    db_url: DbUrl = None,
    state: State = DEFAULT_STATE,
) -> None:
    """Guard a vLLM server with serve-policy's keys and adapter checks (serving key, release key,
    adapter root, private copies, registered fingerprints)."""
    import uvicorn

    from training.serve.gate import create_gate

    keys = _access_keys(api_key, release_key)
    if not upstream_key:
        console.print(
            "[red]policy-gate needs --upstream-key (or LOOPLINE_POLICY_UPSTREAM_KEY): vLLM's own key[/]"
        )
        raise typer.Exit(2)
    private.mkdir(mode=0o700, parents=True, exist_ok=True)
    gate = create_gate(
        upstream,
        upstream_key,
        name,
        keys=keys,
        adapter_root=adapter_root or state / "adapters",
        private=private,
        registered=_registered(state, db_url),
    )
    console.print(f"guarding {upstream} at http://{host}:{port}/v1")
    uvicorn.run(gate, host=host, port=port, log_level="warning")


def _access_keys(api_key: str | None, release_key: str | None) -> AccessKeys:
    if not api_key or not release_key:
        console.print(
            "[red]the policy server needs --api-key and --release-key (or LOOPLINE_POLICY_API_KEY, "
            "LOOPLINE_POLICY_RELEASE_KEY)[/]"
        )
        raise typer.Exit(2)
    try:
        return AccessKeys(serving=api_key, release=release_key)
    except ValueError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None


def _registered(state: Path, db_url: str | None) -> Callable[[str], str | None]:
    """The release store's fingerprint for a served name."""
    from loopline.release.registry import open_registry

    store = open_registry(state, db_url).store

    def registered(served_name: str) -> str | None:
        record = store.by_served_name(served_name)
        return record.fingerprint if record is not None else None

    return registered


def register(app: typer.Typer, train: typer.Typer) -> None:
    """`loopline serve-policy` (and `loopline train serve` as its alias), `loopline policy-gate`."""
    app.command("serve-policy")(serve_policy)
    app.command("policy-gate")(policy_gate)
    train.command("serve", help="Alias of `loopline serve-policy`.")(serve_policy)
