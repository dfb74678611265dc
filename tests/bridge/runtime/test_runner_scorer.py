"""A production episode judged when it ends: the runner's scorer gives the verdict the rollout of the
same task gives, records it on the episode's stream as `verifier.scored` (free text scrubbed of the
episode's PHI), and a scorer that cannot judge leaves the episode unscored, not failed."""

from __future__ import annotations

from pathlib import Path

from adapters import Toolbox
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner
from engine import EpisodeConfig, EpisodeResult
from envs.domain import DOMAINS
from envs.rcm.tasks import generate_base
from envs.rollout import reference_policy
from envs.rollout.episode import run_episode, trajectory
from envs.verifiers.base import VERIFIERS
from loopline.demo.episodes import redactor
from schemas import Event, Task, WorkItem, verify_chain
from schemas.events import EpisodeEnded, VerifierScored
from schemas.verdicts import CheckResult


def _run(
    task: Task, tmp_path: Path, *, explode: bool = False, quote: str = ""
) -> tuple[list[Event], EpisodeResult]:
    domain = DOMAINS.get("rcm")
    specs = list(domain.tool_specs())
    backend = domain.make_backend(task.initial_world, seed=0)
    sink = InMemoryEventSink()
    tmp_path.mkdir(parents=True, exist_ok=True)
    redact = redactor(tmp_path)
    verifier = VERIFIERS.get(task.verifier.verifier)

    def score(item: WorkItem, result: EpisodeResult) -> VerifierScored | None:
        if explode:
            raise RuntimeError("the live system's world cannot be read")
        assert item.item_id == task.work_item.item_id
        played = trajectory(task, 0, result, backend.snapshot(), domain.tool.rules)
        verdict = verifier.score(task, played)
        if quote:  # a verifier that quotes what the agent wrote, PHI and all
            said = CheckResult(name="content.quoted", kind="content", passed=True, explanation=quote)
            verdict = verdict.model_copy(update={"checks": (*verdict.checks, said)})
        return VerifierScored(task_id=task.task_id, verdict=verdict)

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id,
            sink=sink,
            redactor=redact,
            source="loopline://bridge/test",
            args_models={s.name: s.args_model for s in specs},
            snapshot_redact=redact.snapshot_redactor(domain.tool.world_model),
        )

    runner = EpisodeRunner(
        reference_policy("rcm"),
        Toolbox(specs, backend),
        recorders,
        EpisodeConfig(max_steps=40),
        rules=domain.tool.rules,
        scorer=score,
    )
    result = runner.run(task.work_item)
    return list(sink.events), result


def test_the_scorer_records_the_verdict_the_rollout_of_the_same_task_gives(tmp_path: Path) -> None:
    for task in generate_base(0, per_carc=1)[:6]:
        events, _ = _run(task, tmp_path / task.task_id)
        assert isinstance(events[-2].data, EpisodeEnded) and isinstance(events[-1].data, VerifierScored)
        assert verify_chain(events) is None  # the verdict continues the episode's hash chain
        rollout = run_episode(task, reference_policy("rcm"), verifier=VERIFIERS.get(task.verifier.verifier))
        recorded = events[-1].data.verdict
        assert (recorded.passed, recorded.score) == (rollout.verdict.passed, rollout.verdict.score)
        assert [c.name for c in recorded.checks] == [c.name for c in rollout.verdict.checks]


def test_a_verdict_that_quotes_a_patient_is_scrubbed_before_it_is_recorded(tmp_path: Path) -> None:
    task = generate_base(0, per_carc=1)[0]
    patient = next(iter(task.initial_world["patients"].values()))
    name = f"{patient['first_name']} {patient['last_name']}"
    events, _ = _run(task, tmp_path, quote=f"the letter says {name} was seen on the date of service")
    scored = events[-1].data
    assert isinstance(scored, VerifierScored)
    quoted = next(c for c in scored.verdict.checks if c.name == "content.quoted")
    assert (
        patient["last_name"] not in quoted.explanation
        and "was seen on the date of service" in quoted.explanation
    )


def test_a_scorer_that_cannot_judge_leaves_the_episode_ended_and_unscored(tmp_path: Path) -> None:
    task = generate_base(0, per_carc=1)[0]
    events, result = _run(task, tmp_path, explode=True)
    assert isinstance(events[-1].data, EpisodeEnded) and result.error is None
    assert not any(isinstance(e.data, VerifierScored) for e in events)
