"""The demo's two domains as one shape: the queue, the live system (sandbox app with its faults),
the detector's vocabulary, the later outcomes, and the verifier card's sizes.

`run_pipeline` works either through the same bridge, capture, streams and archive; only what is
here differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from loopline.demo.scenario import PlannedOutcome
from schemas import WorkItem

DemoDomainName = Literal["rcm", "credit"]


@dataclass(frozen=True)
class DemoDomain:
    """What the demo needs of one domain."""

    name: DemoDomainName
    queue_label: str
    """What the progress bar says it works."""
    items: list[WorkItem]
    app: Any
    """The sandbox live system (an ASGI app, faults injected)."""
    admin_token: str
    vocabulary: dict[str, list[str]]
    later_outcome: Callable[[str, WorkItem, Iterable[str]], PlannedOutcome | None]
    card_sizes: dict[str, int]
    """`build_card` sizes small enough for a demo."""


def demo_domain(name: DemoDomainName, workdir: Path) -> DemoDomain:
    """The named domain's demo parts; the sandbox keeps its world in `workdir`."""
    db_url = f"sqlite:///{workdir / 'sandbox.db'}"
    if name == "credit":
        from adapters.credit.sandbox import SandboxConfig as CreditSandbox
        from adapters.credit.sandbox import create_app as credit_app
        from loopline.demo import credit

        world = credit.queue_world()
        credit_config = CreditSandbox(
            db_url=db_url, reset=True, faults=credit.live_faults(), document_noise=credit.document_noise()
        )
        return DemoDomain(
            "credit", "working the credit package queue through the bridge", credit.work_queue(world),
            credit_app(credit_config, world), credit_config.admin_token, credit.training_vocabulary(), credit.later_outcome,
            {"per_recipe": 1, "per_kind": 1},
        )  # fmt: skip
    from adapters.rcm import seed_world
    from adapters.rcm.sandbox import SandboxConfig, create_app
    from envs.rcm import generate_base
    from loopline.demo.scenario import later_outcome, live_faults, training_vocabulary, work_queue

    config = SandboxConfig(db_url=db_url, reset=True, faults=live_faults())
    return DemoDomain(
        "rcm", "working the denial queue through the bridge", work_queue(seed_world()), create_app(config),
        config.admin_token, training_vocabulary(generate_base(seed=0)), later_outcome,
        {"per_carc": 1, "per_kind": 1, "queues": 4},
    )  # fmt: skip
