"""Rejection-sampling fine-tuning: sampled rollouts through the environment, only what the verifier
passes kept, a dataset of them, and a LoRA trained on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envs.catalog import generate
from envs.rollout.runner import run_rollouts
from envs.tasksets import dump_jsonl, manifest_hash
from loopline.cli import app
from training.data import DatasetSpec, LoadedTaskSet, build_dataset, write_dataset
from training.data.sources import only_families, task_key
from training.hf.policy import HFChatPolicy
from training.hf.tiny import build_tiny_llama
from training.loop import LoopConfig
from training.lora import LoraSettings, read_lineage
from training.rft import RftSettings, call_shape, kept, rft_spec, sample_rollouts
from training.structured.policy import load_structured_policy
from training.structured.sft import sft_structured


@pytest.fixture(scope="module")
def tiny_tasks(small_base: LoadedTaskSet, tiny_families: tuple[str, ...]) -> LoadedTaskSet:
    return only_families(small_base, frozenset(tiny_families))


def test_sampling_is_seeded_and_explores_beyond_the_greedy_choice(
    tiny_structured: Path, tiny_tasks: LoadedTaskSet
) -> None:
    policy = load_structured_policy(tiny_structured)
    hot = RftSettings(k=4, temperature=3.0, seed=7)
    first = sample_rollouts(policy, [tiny_tasks], hot)
    again = sample_rollouts(policy, [tiny_tasks], hot)
    assert [(s.task_key, s.calls, s.passed) for s in first] == [
        (s.task_key, s.calls, s.passed) for s in again
    ]
    assert len(first) == 4 * len(tiny_tasks.tasks)
    assert len({(s.task_key, call_shape(s.calls)) for s in first}) > len(
        tiny_tasks.tasks
    )  # not one answer per task
    greedy = run_rollouts(list(tiny_tasks.tasks), policy)
    assert all(r.verdict.passed for r in greedy)  # greedy again after sampling


def test_only_rollouts_the_verifier_passed_are_kept_each_once(
    tiny_structured: Path, tiny_tasks: LoadedTaskSet
) -> None:
    samples = sample_rollouts(
        load_structured_policy(tiny_structured), [tiny_tasks], RftSettings(k=6, temperature=1.5)
    )
    assert any(not s.passed for s in samples) and any(s.passed for s in samples)
    trajectories = kept(samples)
    passing = {(s.task_key, call_shape(s.calls)) for s in samples if s.passed}
    assert {(key, call_shape(calls)) for key, found in trajectories.items() for _, calls in found} == passing
    assert sum(len(found) for found in trajectories.values()) == len(passing)


def test_rft_dataset_holds_the_kept_rollouts_and_a_lora_trains_on_it(
    tiny_structured: Path, tiny_tasks: LoadedTaskSet, small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    settings = RftSettings(k=3, temperature=1.0)
    samples = sample_rollouts(load_structured_policy(tiny_structured), [tiny_tasks], settings)
    spec = rft_spec(
        "rft", [tiny_tasks], samples, settings, policy="tiny", replay=[small_base], replay_ratio=0.3
    )
    dataset = build_dataset(spec)
    primary = [r for r in dataset.rows if r.meta.role == "primary"]
    assert primary and all(r.meta.solution.startswith("sample-") for r in primary)
    passed_keys = {s.task_key for s in samples if s.passed}
    assert {
        task_key(t) for t in tiny_tasks.tasks if t.task_id in {r.meta.task_id for r in primary}
    } <= passed_keys
    sampling = dataset.manifest.sampling
    assert sampling is not None and sampling["k"] == 3 and sampling["rollouts"] == len(samples)
    assert sampling["kept"] == len(primary) and dataset.manifest.counts["role"]["replay"] > 0
    folder = write_dataset(dataset, tmp_path / "datasets")
    out = tmp_path / "adapter"
    lineage = sft_structured(
        tiny_structured,
        folder,
        out,
        settings=LoraSettings(r=4, alpha=8),
        loop=LoopConfig(epochs=1, batch_size=8),
    )
    assert read_lineage(out)["dataset"]["sampling"]["method"] == "rejection-sampling"
    assert lineage["rows_used"] > 0


def test_settings_refuse_greedy_sampling_and_no_draws() -> None:
    with pytest.raises(ValueError, match="temperature above 0"):
        RftSettings(temperature=0.0)
    with pytest.raises(ValueError, match="k must be"):
        RftSettings(k=0)


def test_train_rft_samples_keeps_and_trains_an_adapter_from_the_cli(
    tiny_structured: Path, tiny_tasks: LoadedTaskSet, tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(dump_jsonl(list(tiny_tasks.tasks)))
    state = ["--state", str(tmp_path / "state"), "--base-model", str(tiny_structured)]
    args = ["train", "rft", "r1", "-t", str(tasks), "--k", "2", "--epochs", "1", "--r", "4", "--alpha", "8"]
    done = CliRunner().invoke(app, [*args, "--temperature", "1.0", *state])
    assert done.exit_code == 0, done.output
    assert "rejection sampling with base" in done.output and "adapter r1:" in done.output
    manifest = json.loads((tmp_path / "state" / "datasets" / "rft-r1" / "manifest.json").read_text())
    assert manifest["sampling"]["k"] == 2 and manifest["sampling"]["kept"] >= 1
    lineage = json.loads((tmp_path / "state" / "adapters" / "r1" / "lineage.json").read_text())
    assert lineage["dataset"]["content_hash"] == manifest["content_hash"]
    refused = CliRunner().invoke(app, [*args, "--temperature", "0", *state])
    assert refused.exit_code == 2 and "temperature above 0" in refused.output


def test_a_hugging_face_policy_samples_rollouts_through_the_same_code(tmp_path: Path) -> None:
    tasks = generate("toy", 0)[:2]
    loaded = LoadedTaskSet(
        "toy (seed 0)", "toy", None, 0, manifest_hash([t.compute_hash() for t in tasks]), tuple(tasks)
    )
    texts = [r.model_dump_json() for r in build_dataset(DatasetSpec(name="toy", primary=(loaded,))).rows]
    policy = HFChatPolicy.from_path(build_tiny_llama(tmp_path / "tiny-llama", texts))
    policy.max_new_tokens = 24
    settings = RftSettings(k=2, temperature=1.0, seed=3)
    first = sample_rollouts(policy, [loaded], settings)
    again = sample_rollouts(policy, [loaded], settings)
    assert len(first) == 4 and [call_shape(s.calls) for s in first] == [call_shape(s.calls) for s in again]
    assert policy.temperature == 0.0
    spec = rft_spec(
        "hf-rft", [loaded], first, settings, policy="tiny-llama", replay=[loaded], replay_ratio=0.5
    )
    assert spec.sampling is not None and spec.sampling["rollouts"] == 4
