"""Recorded production episodes: the domain's reference agent works a task through the bridge
runtime and capture tokenises its PHI, as in production, without a broker or a live system (the
task's world is the sim). The promotion tests and `bench/promotion.py` record their episodes with it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from adapters import Toolbox
from adapters.credit.world import World as CreditWorld
from adapters.rcm import World
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner, RunnerConfig
from envs.credit.domain import DOMAIN as CREDIT
from envs.domain import Domain
from envs.rcm.domain import RcmDomain
from loopline.reference_policy import ReferencePolicy
from schemas import Event, Task

DOMAIN = RcmDomain()
_DOMAINS: dict[str, tuple[Domain, type[BaseModel], str]] = {
    "rcm": (DOMAIN, World, "escalate_to_human"),
    "credit": (CREDIT, CreditWorld, "escalate_to_committee"),
}


def redactor(folder: Path) -> Redactor:
    """A PHI redactor for tenant `clinic-a` with a fixed key and its vault in `folder`."""
    keys = PhiKeys.from_master(b"w" * 32)
    return Redactor(PhiTokenizer(keys, PhiVault.open(f"sqlite:///{folder / 'vault.db'}", keys)), "clinic-a")


def record(task: Task, redact: Redactor) -> list[Event]:
    """The episode's events, PHI tokenised (an rcm or a credit task)."""
    domain, world_model, escalate = _DOMAINS[task.domain]
    specs = list(domain.tool_specs())
    sink = InMemoryEventSink()
    args_models = {spec.name: spec.args_model for spec in specs}

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id, sink=sink, redactor=redact, source="loopline://test/promotion",
            args_models=args_models, snapshot_redact=redact.snapshot_redactor(world_model),
        )  # fmt: skip

    runner = EpisodeRunner(
        ReferencePolicy("credit" if task.domain == "credit" else "rcm"),
        Toolbox(specs, domain.make_backend(task.initial_world, seed=0)),
        recorders,
        RunnerConfig(max_steps=40, escalate_tool=escalate),
    )
    runner.run(task.work_item)
    return list(sink.events)
