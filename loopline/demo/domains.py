"""The demo's domain, as its descriptor describes it: the queue, the live system (its sandbox app
with the scenario's faults), the detector's vocabulary, the later outcomes and the card's sizes.

`run_pipeline` works any of them through the same bridge, capture, streams and archive.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.sandbox import create_sandbox_app
from envs.demo import DemoScenario
from envs.domain import DOMAINS
from schemas import WorkItem


@dataclass(frozen=True)
class DemoDomain:
    """What the demo needs of one domain."""

    name: str
    scenario: DemoScenario
    world: Any
    """The world the sandbox starts from."""
    items: list[WorkItem]
    app: Any
    """The sandbox live system (an ASGI app, faults injected)."""
    admin_token: str


def demo_domains() -> list[str]:
    """The domains with a demo."""
    return [d.name for d in DOMAINS.all() if d.demo is not None and d.sandbox is not None]


def demo_domain(name: str, workdir: Path) -> DemoDomain:
    """The named domain's demo parts; the sandbox keeps its world in `workdir`."""
    described = DOMAINS.get(name)
    scenario, sandbox = described.demo, described.load_sandbox()
    if scenario is None or sandbox is None:
        raise ValueError(f"domain {name!r} has no demo; known: {', '.join(demo_domains())}")
    world = scenario.world()
    config = sandbox.config_type.model_validate(
        {
            "db_url": f"sqlite:///{workdir / 'sandbox.db'}",
            "reset": True,
            "faults": scenario.faults(),
            **scenario.sandbox_settings(),
        }
    )
    app = create_sandbox_app(sandbox, config, world)
    return DemoDomain(name, scenario, world, scenario.work_queue(world), app, config.admin_token)
