"""Recorded production episodes for the promotion tests: the reference specialist works a task
through the bridge runtime, and capture tokenises its PHI, as in production."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters import Toolbox
from adapters.rcm import World
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner, RunnerConfig
from envs.rcm.domain import RcmDomain
from loopline.reference_policy import ReferencePolicy
from schemas import Event, Task

DOMAIN = RcmDomain()


def redactor(folder: Path) -> Redactor:
    keys = PhiKeys.from_master(b"w" * 32)
    return Redactor(PhiTokenizer(keys, PhiVault.open(f"sqlite:///{folder / 'vault.db'}", keys)), "clinic-a")


def record(task: Task, redact: Redactor) -> list[Event]:
    """The episode's events, PHI tokenised."""
    specs = list(DOMAIN.tool_specs())
    sink = InMemoryEventSink()
    args_models = {spec.name: spec.args_model for spec in specs}

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id, sink=sink, redactor=redact, source="loopline://test/promotion",
            args_models=args_models, snapshot_redact=redact.snapshot_redactor(World),
        )  # fmt: skip

    runner = EpisodeRunner(
        ReferencePolicy(),
        Toolbox(specs, DOMAIN.make_backend(task.initial_world, seed=0)),
        recorders,
        RunnerConfig(max_steps=40, escalate_tool="escalate_to_human"),
    )
    runner.run(task.work_item)
    return list(sink.events)


def raw_phi(world: dict[str, Any]) -> set[str]:
    """Every PHI value of a source world, as text: names, birth dates, member ids, document lines."""
    found: set[str] = set()
    for patient in world["patients"].values():
        found |= {
            patient["first_name"],
            patient["last_name"],
            patient["birth_date"],
            patient["address"]["line1"],
        }
    for coverage in world["coverages"].values():
        found |= {coverage["member_id"], coverage["subscriber_birth_date"]}
    for claim in world["claims"].values():
        found |= {claim["member_id"], claim["patient_birth_date"]}
    for document in world["documents"].values():
        found |= {line for line in document["text"].splitlines() if len(line) > 12}
    return {value for value in found if len(value) >= 4}
