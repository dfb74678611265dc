"""The production hand-off: the bridge runtime, driving the same tools the environments use, reaches
the gold outcome. The reference specialist works sampled tasks through `bridge.runtime` (chat
messages in, tool calls out, every step captured with PHI tokenised), and the `envs` verifier scores
the final world and the calls exactly as it scores a training rollout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters import Toolbox
from adapters.rcm import World
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner
from engine import EpisodeConfig
from envs.contract import Trajectory
from envs.rcm import generate_base, generate_edge
from envs.rcm.domain import RULES, RcmDomain
from envs.rollout import reference_policy
from envs.verifiers.base import score_task
from schemas import Task, verify_chain

pytestmark = pytest.mark.e2e
DOMAIN = RcmDomain()


def _sample() -> list[Task]:
    base, edge = generate_base(seed=0), generate_edge(seed=0)
    return [*base[::16], *edge[::8]]


@pytest.fixture(scope="module")
def redactor(tmp_path_factory: pytest.TempPathFactory) -> Redactor:
    keys = PhiKeys.from_master(b"k" * 32)
    vault = PhiVault.open(f"sqlite:///{Path(tmp_path_factory.mktemp('vault')) / 'v.db'}", keys)
    return Redactor(PhiTokenizer(keys, vault), "clinic-a")


@pytest.mark.parametrize("task", _sample(), ids=lambda t: t.task_id)
def test_the_bridge_runtime_works_a_task_to_its_gold_outcome(task: Task, redactor: Redactor) -> None:
    backend = DOMAIN.make_backend(task.initial_world, seed=0)
    specs = [spec for spec in DOMAIN.tool_specs() if spec.name in task.tools]
    sink = InMemoryEventSink()
    args_models = {spec.name: spec.args_model for spec in specs}

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id, sink=sink, redactor=redactor, source="loopline://test/handoff",
            args_models=args_models, snapshot_redact=redactor.snapshot_redactor(World),
        )  # fmt: skip

    runner = EpisodeRunner(
        reference_policy("rcm"),
        Toolbox(specs, backend),
        recorders,
        EpisodeConfig(max_steps=40),
        rules=RULES,
    )
    result = runner.run(task.work_item, task_id=task.task_id)

    trajectory = Trajectory(
        task_id=task.task_id,
        seed=0,
        turns=result.turns,
        final_world=backend.snapshot(),
        end_reason="agent_finished" if result.status == "completed" else "terminal_tool",
        final_message=result.final_message,
    )
    verdict = score_task(task, trajectory)
    failed = [f"{c.name}: {c.explanation}" for c in verdict.checks if not c.passed]
    assert verdict.score == 1.0, failed
    assert result.status in ("completed", "escalated")
    assert verify_chain(sink.events) is None
    assert sink.events[0].data.task_id == task.task_id  # type: ignore[attr-defined]
