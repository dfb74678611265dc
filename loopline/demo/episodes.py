"""Recorded production episodes: the domain's reference agent works a task through the bridge
runtime and capture tokenises its PHI, as in production, without a broker or a live system (the
task's world is the sim). The promotion tests and `bench/promotion.py` record their episodes with it."""

from __future__ import annotations

from pathlib import Path

from adapters import Toolbox
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner
from engine import EpisodeConfig
from envs.domain import DOMAINS
from envs.rollout import reference_policy
from schemas import Event, Task


def redactor(folder: Path) -> Redactor:
    """A PHI redactor for tenant `clinic-a` with a fixed key and its vault in `folder`."""
    keys = PhiKeys.from_master(b"w" * 32)
    return Redactor(PhiTokenizer(keys, PhiVault.open(f"sqlite:///{folder / 'vault.db'}", keys)), "clinic-a")


def record(task: Task, redact: Redactor) -> list[Event]:
    """The episode's events, PHI tokenised (a task of any domain with a reference specialist)."""
    domain = DOMAINS.get(task.domain)
    world_model = domain.tool.world_model
    specs = list(domain.tool_specs())
    sink = InMemoryEventSink()
    args_models = {spec.name: spec.args_model for spec in specs}

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id,
            sink=sink,
            redactor=redact,
            source="loopline://test/promotion",
            args_models=args_models,
            snapshot_redact=redact.snapshot_redactor(world_model),
        )

    runner = EpisodeRunner(
        reference_policy(task.domain),
        Toolbox(specs, domain.make_backend(task.initial_world, seed=0)),
        recorders,
        EpisodeConfig(max_steps=40),
        rules=domain.tool.rules,
    )
    runner.run(task.work_item)
    return list(sink.events)
