"""Record/replay drafts: an episode captured with PHI tokenised becomes a task draft whose rebuilt
world reproduces the episode's own calls, with surrogates in place of every PHI value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters import Toolbox
from adapters.drafting.draft import TaskDraft
from adapters.drafting.recording import RecordingError
from adapters.rcm import World
from adapters.surrogates import TOKEN
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from bridge.runtime import EpisodeRunner
from engine import EpisodeConfig
from envs.rcm import generate_base, generate_edge
from envs.rcm.domain import RULES, RcmDomain
from envs.rcm.promotion import PROMOTION
from envs.rollout import reference_policy
from schemas import Event, Task
from schemas.events import ToolReturned
from tests.workflows.episodes import raw_phi

DOMAIN = RcmDomain()


@pytest.fixture(scope="module")
def redactor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redactor]:
    keys = PhiKeys.from_master(b"d" * 32)
    vault = PhiVault.open(f"sqlite:///{Path(tmp_path_factory.mktemp('vault')) / 'v.db'}", keys)
    yield Redactor(PhiTokenizer(keys, vault), "clinic-a")


def record(task: Task, redactor: Redactor) -> list[Event]:
    """The reference specialist works `task` through the bridge runtime; capture tokenises PHI."""
    specs = list(DOMAIN.tool_specs())
    sink = InMemoryEventSink()
    args_models = {spec.name: spec.args_model for spec in specs}

    def recorders(episode_id: str) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id, sink=sink, redactor=redactor, source="loopline://test/drafts",
            args_models=args_models, snapshot_redact=redactor.snapshot_redactor(World),
        )  # fmt: skip

    backend = DOMAIN.make_backend(task.initial_world, seed=0)
    runner = EpisodeRunner(
        reference_policy("rcm"),
        Toolbox(specs, backend),
        recorders,
        EpisodeConfig(max_steps=40),
        rules=RULES,
    )
    runner.run(task.work_item)
    return list(sink.events)


def draft_of(events: list[Event], threshold: float = 0.9) -> TaskDraft:
    return PROMOTION.build_draft(
        events, fingerprint="f" * 64, rule="tool_failure.http_5xx", threshold=threshold
    )


def _sample() -> list[Task]:
    base = generate_base(seed=3, per_carc=1)
    edge = generate_edge(seed=3, per_kind=1)
    return [
        *base[::3],
        *[t for t in edge if "edge:tool_error" in t.tags or "edge:duplicate_of_denied" in t.tags],
    ]


@pytest.mark.parametrize("task", _sample(), ids=lambda t: t.task_id)
def test_a_draft_replays_every_call_of_its_episode_exactly(task: Task, redactor: Redactor) -> None:
    draft = draft_of(record(task, redactor))
    assert draft.fidelity.calls > 0
    assert draft.fidelity.mismatches == (), [m.what for m in draft.fidelity.mismatches]
    assert draft.fidelity.share == 1.0 and draft.accepted
    assert draft.work_item == task.work_item  # the payload capture tokenised is rebuilt as the agent saw it


def test_a_draft_holds_no_raw_phi_value_and_no_capture_token(redactor: Redactor) -> None:
    tasks = [t for t in generate_base(seed=5, per_carc=1) if {"carc:31", "carc:50", "carc:16"} & set(t.tags)]
    for task in tasks:
        text = draft_of(record(task, redactor)).model_dump_json()
        raw = raw_phi(task.initial_world)
        assert len(raw) > 5
        leaked = sorted(value for value in raw if value in text)
        assert leaked == [], f"{task.task_id} leaks {leaked[:3]}"
        assert TOKEN.search(text) is None


def test_one_token_gets_one_surrogate_across_calls(redactor: Redactor) -> None:
    task = next(
        t for t in generate_base(seed=1, per_carc=1) if "carc:31" in t.tags
    )  # eligibility by demographics
    draft = draft_of(record(task, redactor))
    claim = draft.world["claims"][task.work_item.item_id]
    remittance = next(r for r in draft.world["remittances"].values() if r["claim_id"] == claim["claim_id"])
    assert claim["patient_last_name"] == remittance["patient_last_name"]
    assert claim["patient_last_name"] != task.initial_world["claims"][claim["claim_id"]]["patient_last_name"]
    patient = draft.world["patients"][claim["patient_id"]]
    assert (patient["first_name"], patient["birth_date"]) == (
        claim["patient_first_name"],
        claim["patient_birth_date"],
    )


def test_live_faults_become_a_fault_plan_replayed_at_their_calls(redactor: Redactor) -> None:
    task = next(t for t in generate_edge(seed=0, per_kind=2) if "edge:tool_error" in t.tags)
    draft = draft_of(record(task, redactor))
    assert draft.faults, "the tool_error case's live failure is in the plan"
    assert draft.fidelity.injected_faults == len(draft.faults)
    assert draft.fidelity.share == 1.0


def test_a_draft_below_its_threshold_is_refused_with_every_mismatch_listed(redactor: Redactor) -> None:
    task = next(
        t for t in generate_base(seed=0, per_carc=1) if "carc:45" in t.tags
    )  # a contractual write-off
    events = record(task, redactor)
    tampered = []
    for event in events:
        data = event.data
        if isinstance(data, ToolReturned) and data.name == "post_write_off":  # the live system said otherwise
            result = {**data.result, "insurance_balance": data.result["insurance_balance"] + 7.5}
            event = event.model_copy(update={"data": data.model_copy(update={"result": result})})
        tampered.append(event)
    draft = draft_of(tampered, threshold=0.99)
    assert not draft.accepted and draft.refusal and "below the threshold 0.99" in draft.refusal
    assert [m.tool for m in draft.fidelity.mismatches] == ["post_write_off"]
    assert "insurance_balance" in draft.fidelity.mismatches[0].what
    assert draft.fidelity.reproduced == draft.fidelity.calls - 1


def test_events_without_an_episode_start_are_refused_with_a_clear_error(redactor: Redactor) -> None:
    events = record(generate_base(seed=0, per_carc=1)[0], redactor)[1:]
    with pytest.raises(RecordingError, match=r"no episode\.started"):
        draft_of(events)


def test_a_draft_is_the_same_for_the_same_episode(redactor: Redactor) -> None:
    events = record(generate_base(seed=2, per_carc=1)[4], redactor)
    first, second = draft_of(events), draft_of(events)
    assert first.content_hash == second.content_hash and first.draft_id == second.draft_id
    assert json.loads(first.model_dump_json()) == json.loads(second.model_dump_json())
