"""`loopline sandbox serve|snapshot`: a domain's sandbox live system (rcm: payer, clearinghouse and
practice management; credit: the fund's deal system)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

app = typer.Typer(
    help="A domain's sandbox: a stand-in live system for demos and tests.", no_args_is_help=True
)
DOMAIN_HELP = "The domain whose sandbox to serve (rcm: payer / clearinghouse / practice management; credit: the fund's deal system)."
console = Console()

if TYPE_CHECKING:
    from adapters.sandbox import SandboxDomain


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind (loopback by default)."),
    port: int = typer.Option(8835, "--port", help="TCP port."),
    db: Path = typer.Option(None, "--db", help="SQLite file for the world (default: in memory)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fault-injection decisions."),
    world: Path = typer.Option(
        None, "--world", help="World snapshot (JSON) to start from instead of the seed world."
    ),
    reset: bool = typer.Option(False, "--reset", help="Reseed even if --db already holds a world."),
    fault_rate: float = typer.Option(0.0, "--fault-rate", help="Share of requests answered 503."),
    timeout_rate: float = typer.Option(0.0, "--timeout-rate", help="Share of requests that stall."),
    latency_ms: float = typer.Option(0.0, "--latency-ms", help="Latency added to every response."),
    admin_token: str = typer.Option(
        None,
        "--admin-token",
        envvar="LOOPLINE_SANDBOX_ADMIN_TOKEN",
        help="Bearer token of the /admin routes (16+ chars); a random one is made and printed when unset.",
    ),
    domain: str = typer.Option("rcm", "--domain", help=DOMAIN_HELP),
    document_noise: float = typer.Option(
        0.0, "--document-noise", help="credit: share of printed figures damaged as OCR damages them."
    ),
) -> None:
    """Serve the sandbox with uvicorn; change faults and rules at runtime under /admin."""
    import uvicorn
    from pydantic import ValidationError

    from adapters.faults import FaultConfig
    from adapters.sandbox import create_sandbox_app

    sandbox = _sandbox(domain)
    settings: dict[str, object] = {
        "db_url": f"sqlite:///{db}" if db else "sqlite://",
        "world_path": str(world) if world else None,
        "reset": reset,
        "faults": FaultConfig(
            seed=seed, error_5xx_rate=fault_rate, timeout_rate=timeout_rate, latency_ms=latency_ms
        ),
        **({"admin_token": admin_token} if admin_token else {}),
        **({"document_noise": {"seed": seed, "rate": document_noise}} if document_noise else {}),
    }
    try:
        config = sandbox.config_type.model_validate(settings)
    except ValidationError as exc:
        console.print(f"[red]error:[/] the {domain} sandbox does not take these settings: {exc}")
        raise typer.Exit(2) from None
    console.print(f"{sandbox.title} on http://{host}:{port} (docs at /docs, admin at /admin)")
    if not admin_token:
        console.print(f"admin token (Authorization: Bearer ...): {config.admin_token}")
    uvicorn.run(
        create_sandbox_app(sandbox, config), host=host, port=port, log_level="warning", access_log=False
    )


def _sandbox(domain: str) -> SandboxDomain[Any]:
    from envs.domain import DOMAINS

    sandbox = DOMAINS.get(domain).load_sandbox() if domain in DOMAINS.names() else None
    if sandbox is None:
        console.print(f"[red]error:[/] no sandbox for domain {domain!r}")
        raise typer.Exit(2)
    return sandbox


@app.command()
def snapshot(
    out: Path = typer.Option(..., "--out", help="Where to write the seed world as JSON."),
    domain: str = typer.Option("rcm", "--domain", help=DOMAIN_HELP),
) -> None:
    """Write the seed world as a JSON snapshot (a starting point for --world)."""
    sandbox = _sandbox(domain)
    out.write_text(sandbox.seed().model_dump_json(indent=2))
    console.print(f"wrote the {domain} seed world to {out}")
