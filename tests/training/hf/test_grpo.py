"""GRPO of a Hugging Face chat model (tiny random Llama): episodes through the real engine, the
log-probs of what the model wrote, the update, and a round end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from envs.catalog import generate
from envs.rollout.episode import EpisodeRecord
from envs.tasksets import manifest_hash
from training.data import LoadedTaskSet
from training.grpo import GrpoSettings
from training.hf.grpo import HFGrpoTrainer, grpo_hf, load_for_grpo, sample_episodes, token_kl
from training.hf.policy import HFChatPolicy
from training.lora import LLAMA_TARGETS, LoraSettings, read_lineage

LORA = LoraSettings(r=4, alpha=8, target_modules=LLAMA_TARGETS, modules_to_save=())


pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def toy_tasks() -> LoadedTaskSet:
    tasks = tuple(generate("toy", 0)[:2])
    return LoadedTaskSet(
        "toy (seed 0)", "toy", None, 0, manifest_hash([t.compute_hash() for t in tasks]), tasks
    )


def written(record: EpisodeRecord) -> float:
    """A reward with spread on a random model (it never passes): a function of the text it wrote."""
    replies = [
        e.model_dump(mode="json")["data"] for e in record.events if e.type.startswith("loopline.model.")
    ]
    said = [str(sorted((k, str(v)) for k, v in r.items() if k != "latency_ms")) for r in replies]
    return float(sum(sum(map(ord, text)) % 7 for text in said))


def _total(trainer: HFGrpoTrainer, turns: list[object]) -> float:
    with torch.no_grad():
        return float(trainer.log_probs(turns).sum())  # type: ignore[arg-type]


def test_kl_is_zero_at_start_and_a_positive_episode_gains(tiny_llama: Path, toy_tasks: LoadedTaskSet) -> None:
    settings = GrpoSettings(k=2, rounds=1, epochs=1, lr=1e-2, kl=0.05)
    model, policy = load_for_grpo(tiny_llama, LORA, 0)
    policy.max_new_tokens = 12
    one = LoadedTaskSet(toy_tasks.label, toy_tasks.name, None, 0, toy_tasks.set_hash, toy_tasks.tasks[:1])
    episodes = sample_episodes(policy, [one], settings, 0, max_steps=3)
    assert len(episodes) == 2 and all(e.turns and e.turns[0].completion for e in episodes)
    assert policy.on_turn is None and policy.temperature == 0.0
    good, bad = list(episodes[0].turns), list(episodes[1].turns)
    trainer = HFGrpoTrainer(model, settings)
    with torch.no_grad():
        now, ref = trainer.log_probs(good), trainer.reference(good)
    assert float(token_kl(now, ref).abs().max()) == 0.0  # LoRA's B starts at 0: the base itself
    before_good, before_bad = _total(trainer, good), _total(trainer, bad)  # type: ignore[arg-type]
    trainer.update(good + bad, [1.0] * len(good) + [-1.0] * len(bad), 0)
    assert _total(trainer, good) > before_good  # type: ignore[arg-type]
    assert _total(trainer, bad) < before_bad  # type: ignore[arg-type]
    with torch.no_grad():
        assert float(token_kl(trainer.log_probs(good), trainer.reference(good)).mean()) > 0.0


def _run(
    base: Path, sets: list[LoadedTaskSet], out: Path, reward: object, seed: int = 0
) -> dict[str, object]:
    settings = GrpoSettings(k=2, rounds=2, epochs=1, lr=1e-2, seed=seed)
    return grpo_hf(
        base,
        sets,
        out,
        settings=settings,
        lora=LORA,
        max_new_tokens=12,
        max_steps=3,
        reward=reward,  # type: ignore[arg-type]
    )


def test_rounds_end_to_end_change_the_adapter_and_repeat_per_seed(
    tiny_llama: Path, toy_tasks: LoadedTaskSet, tmp_path: Path
) -> None:
    lineage = _run(tiny_llama, [toy_tasks], tmp_path / "a", written)
    rounds = lineage["rounds"]
    assert isinstance(rounds, list) and len(rounds) == 2
    assert all(r["rollouts"] == 4 and r["groups"] == 2 for r in rounds)
    assert any(r["steps_trained"] > 0 for r in rounds)
    weights = load_file(str(tmp_path / "a" / "adapter_model.safetensors"))
    assert any(float(w.abs().max()) > 0 for name, w in weights.items() if "lora_B" in name)  # it moved
    assert read_lineage(tmp_path / "a")["method"] == "grpo"
    policy = HFChatPolicy.from_path(tiny_llama, tmp_path / "a")  # what serve-policy loads
    assert policy.name == "a"
    _run(tiny_llama, [toy_tasks], tmp_path / "b", written)
    again = load_file(str(tmp_path / "b" / "adapter_model.safetensors"))
    assert all(torch.equal(weights[n], again[n]) for n in weights)
    _run(tiny_llama, [toy_tasks], tmp_path / "c", written, seed=1)
    other = load_file(str(tmp_path / "c" / "adapter_model.safetensors"))
    assert any(not torch.equal(weights[n], other[n]) for n in weights)


def test_verifier_reward_on_a_model_that_never_passes_teaches_nothing(
    tiny_llama: Path, toy_tasks: LoadedTaskSet, tmp_path: Path
) -> None:
    """The verifier's score of a random model is 0 everywhere: every group is without spread, counted,
    and the adapter stays the base."""
    settings = GrpoSettings(k=2, rounds=1, epochs=1)
    lineage = grpo_hf(
        tiny_llama, [toy_tasks], tmp_path / "v", settings=settings, lora=LORA, max_new_tokens=12, max_steps=3
    )
    (report,) = lineage["rounds"]
    assert report["mean_reward"] == 0.0 and report["groups_without_spread"] == report["groups"] == 2
    assert report["steps_trained"] == 0
    weights = load_file(str(tmp_path / "v" / "adapter_model.safetensors"))
    assert all(float(w.abs().max()) == 0 for name, w in weights.items() if "lora_B" in name)


def test_train_grpo_from_the_cli_takes_an_hf_base(
    tiny_llama: Path, toy_tasks: LoadedTaskSet, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from envs.tasksets import dump_jsonl
    from loopline.cli import app

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(dump_jsonl(list(toy_tasks.tasks)))
    args = ["train", "grpo", "h1", "-t", str(tasks), "--k", "2", "--rounds", "1", "--r", "4", "--alpha", "8"]
    state = ["--state", str(tmp_path / "state"), "--base-model", str(tiny_llama), "--max-new-tokens", "8"]
    done = CliRunner().invoke(app, [*args, *state])
    assert done.exit_code == 0, done.output
    assert "adapter h1:" in done.output and "GRPO of tiny-llama" in done.output
    lineage = read_lineage(tmp_path / "state" / "adapters" / "h1")
    assert lineage["kind"] == "hf-causal-lm-lora" and lineage["hyperparameters"]["max_new_tokens"] == 8
