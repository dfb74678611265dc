"""GRPO of a Hugging Face chat model: k sampled episodes per task through the episode engine, the
verifier's score as reward, group-relative advantages, and LoRA updates of the tokens the model
wrote, with a KL penalty to the frozen base, for several on-policy rounds.

A loop of ours, not TRL's `GRPOTrainer` (docs/training.md, "GRPO of a Hugging Face model", says
why): the episode is the engine's (`run_rollouts`: tools run by the environment, guards, the step
budget, the verifier's score at the end), the same episode evaluation and rejection sampling run.
The policy reports every turn as it decodes (`HFChatPolicy.on_turn`: the prompt's token ids and the
ids it generated), so the log-probability of exactly what it wrote, given exactly what it was shown,
is scored; tool results and prompts are context, never trained on. The pure part (advantages, the
clipped loss, the KL weight) is `training.grpo`, shared with the structured policy's GRPO.

Per token: the ratio of the adapter's to the sampling adapter's probability (PPO-clipped), times
the episode's advantage, minus `kl` times the token's KL to the base (adapter disabled, peft's
`disable_adapter`; TRL's k3 estimator exp(r) - r - 1 with r = log p_base - log p, 0 before the first
update); the loss is the negative mean over the batch's tokens.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from torch import Tensor
from transformers import AutoModelForCausalLM, AutoTokenizer

from envs.rollout.episode import EpisodeRecord
from envs.rollout.runner import RolloutConfig, run_rollouts
from training.data.sources import LoadedTaskSet, task_key
from training.determinism import deterministic
from training.grpo import (
    GrpoSettings,
    RoundReport,
    batches,
    draw_seed,
    grpo_loss,
    keyed_advantages,
    rollout_dataset,
)
from training.hf.policy import HFChatPolicy
from training.lineage import code_version, tree_hash
from training.lora import LoraSettings, attach, save_lineage

Reward = Callable[[EpisodeRecord], float]


def verifier_score(record: EpisodeRecord) -> float:
    """The default reward: the verifier's score of the episode."""
    return float(record.verdict.score)


@dataclass(frozen=True)
class Turn:
    """One assistant turn: the token ids the model was given and the ids it generated."""

    prompt: tuple[int, ...]
    completion: tuple[int, ...]


@dataclass(frozen=True)
class Episode:
    """One sampled episode: its task, draw, reward and the turns the model wrote."""

    task_key: str
    draw: int
    reward: float
    passed: bool
    turns: tuple[Turn, ...]


def sample_episodes(
    policy: HFChatPolicy,
    sets: Sequence[LoadedTaskSet],
    settings: GrpoSettings,
    round_: int,
    *,
    reward: Reward = verifier_score,
    max_steps: int | None = None,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[Episode]:
    """k episodes of every task at the settings' temperature, each with its turns; greedy again after."""
    tasks = [t for s in sets for t in s.tasks]
    keys = [task_key(t) for t in tasks]
    turns: list[Turn] = []
    ended: list[tuple[Turn, ...]] = []

    def finished(record: EpisodeRecord) -> None:
        ended.append(tuple(turns))
        turns.clear()
        if on_record is not None:
            on_record(record)

    policy.on_turn = lambda prompt, new: turns.append(Turn(tuple(prompt), tuple(new)))
    config = RolloutConfig(seed=settings.env_seed)
    config = config if max_steps is None else RolloutConfig(seed=settings.env_seed, max_steps=max_steps)
    found: list[Episode] = []
    try:
        for draw in range(settings.k):
            policy.sample(settings.temperature, draw_seed(settings.seed, round_, draw))
            ended.clear()
            records = run_rollouts(tasks, policy, config=config, on_record=finished)
            found += [
                Episode(key, draw, reward(r), r.verdict.passed, steps)
                for key, r, steps in zip(keys, records, ended, strict=True)
            ]
    finally:
        policy.on_turn = None
        policy.sample(0.0, settings.seed)
    return found


def episode_advantages(episodes: Sequence[Episode]) -> tuple[list[float], int, int]:
    """Each episode's group-relative advantage (a group is one task's episodes), the number of
    groups, and how many had no spread."""
    return keyed_advantages([e.task_key for e in episodes], [e.reward for e in episodes])


def turn_log_probs(model: Any, turn: Turn, temperature: float) -> Tensor:
    """[T]: the log-probability of each generated token given everything before it, of the policy
    tempered at `temperature` (the distribution it was sampled from)."""
    ids = torch.tensor([list(turn.prompt) + list(turn.completion)])
    logits = model(input_ids=ids, use_cache=False).logits[0, len(turn.prompt) - 1 : -1].float()
    logp = torch.log_softmax(logits / temperature, dim=-1)
    return logp.gather(1, torch.tensor(turn.completion).unsqueeze(1)).squeeze(1)


def token_kl(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """[T]: the k3 estimate of KL(policy || reference) per sampled token (>= 0, 0 where equal)."""
    r = ref_logp - logp
    return torch.exp(r) - r - 1


class HFGrpoTrainer:
    """The adapted model, its optimizer and one round's update."""

    def __init__(self, model: Any, settings: GrpoSettings) -> None:
        self.model, self.settings = model, settings
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.params, lr=settings.lr, weight_decay=settings.weight_decay)

    def log_probs(self, turns: Sequence[Turn]) -> Tensor:
        return torch.cat([turn_log_probs(self.model, t, self.settings.temperature) for t in turns])

    def reference(self, turns: Sequence[Turn]) -> Tensor:
        """The turns' token log-probs under the base, adapter disabled (no gradients)."""
        with torch.no_grad(), self.model.disable_adapter():
            return self.log_probs(turns)

    def update(self, turns: Sequence[Turn], advantages: Sequence[float], round_: int) -> tuple[float, float]:
        """`epochs` passes of clipped policy-gradient steps over the turns (`batch_size` turns a
        step), each token with its episode's advantage; (last loss, mean KL of the last pass)."""
        s = self.settings
        self.model.eval()  # no dropout: the ratio compares the policy that sampled
        with torch.no_grad():
            old = [turn_log_probs(self.model, t, s.temperature) for t in turns]
        loss_value, kls = float("nan"), list[float]()
        for epoch in range(s.epochs):
            kls = []
            for index in batches(len(turns), s, round_, epoch):
                chunk = [turns[j] for j in index]
                ref = self.reference(chunk)
                now = self.log_probs(chunk)
                kl = token_kl(now, ref)
                adv = torch.cat([torch.full((len(turns[j].completion),), advantages[j]) for j in index])
                before = torch.cat([old[j] for j in index])
                loss = grpo_loss(now, before, adv, kl, beta=s.kl, clip=s.clip)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()  # type: ignore[no-untyped-call]
                torch.nn.utils.clip_grad_norm_(self.params, s.max_grad_norm)
                self.optimizer.step()
                loss_value = float(loss.detach())
                kls.append(float(kl.detach().mean()))
        return loss_value, sum(kls) / len(kls) if kls else 0.0


def load_for_grpo(base: Path, lora: LoraSettings, seed: int) -> tuple[Any, HFChatPolicy]:
    """The base model (fp32, local files only) with a fresh adapter seeded by `seed`, and the chat
    policy decoding through it."""
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(str(base), local_files_only=True, dtype=torch.float32)
    torch.manual_seed(seed)
    peft_model = attach(model, lora)
    return peft_model, HFChatPolicy(peft_model, tokenizer, "grpo")


def grpo_hf(
    base: Path,
    sets: Sequence[LoadedTaskSet],
    out: Path,
    *,
    settings: GrpoSettings,
    lora: LoraSettings,
    max_new_tokens: int = 256,
    max_steps: int | None = None,
    reward: Reward = verifier_score,
    parent_adapter_id: str | None = None,
    on_round: Callable[[RoundReport], None] | None = None,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> dict[str, Any]:
    """Train a LoRA adapter of the HF model in `base` by GRPO on `sets`; write it to `out`; its lineage."""
    if not any(s.tasks for s in sets):
        raise ValueError("no tasks to sample")
    began = time.monotonic()
    reports: list[RoundReport] = []
    with deterministic(settings.seed, settings.threads) as held:
        model, policy = load_for_grpo(base, lora, settings.seed)
        policy.max_new_tokens = max_new_tokens
        trainer = HFGrpoTrainer(model, settings)
        for round_ in range(settings.rounds):
            tick = time.monotonic()
            episodes = sample_episodes(
                policy, sets, settings, round_, reward=reward, max_steps=max_steps, on_record=on_record
            )
            advantages, groups, flat = episode_advantages(episodes)
            taught = [(t, a) for e, a in zip(episodes, advantages, strict=True) if a != 0.0 for t in e.turns]
            taught = [(t, a) for t, a in taught if t.completion]
            loss, kl = float("nan"), 0.0
            if taught:
                loss, kl = trainer.update([t for t, _ in taught], [a for _, a in taught], round_)
            report = RoundReport(
                round=round_,
                rollouts=len(episodes),
                mean_reward=sum(e.reward for e in episodes) / len(episodes),
                pass_rate=sum(e.passed for e in episodes) / len(episodes),
                groups=groups,
                groups_without_spread=flat,
                steps_trained=sum(len(t.completion) for t, _ in taught),
                mean_kl=kl,
                loss=loss,
                seconds=time.monotonic() - tick,
            )
            reports.append(report)
            if on_round is not None:
                on_round(report)
        model.save_pretrained(str(out))
    lineage = {
        "adapter_id": out.name,
        "kind": "hf-causal-lm-lora",
        "method": "grpo",
        "created_at": datetime.now(UTC).isoformat(),
        "base_model": {"folder": str(base), "hash": tree_hash(base), "name": base.name},
        "parent_adapter_id": parent_adapter_id,
        "dataset": rollout_dataset(sets),
        "task_set_versions": {s.name: s.version for s in sets},
        "hyperparameters": {
            "lora": lora.to_json(),
            "grpo": settings.to_json(),
            "max_new_tokens": max_new_tokens,
            "reward": getattr(reward, "__name__", "custom"),
            "dtype": "fp32",
        },
        "code_version": code_version(),
        "rounds": [asdict(r) for r in reports],
        "training": {
            "rounds": settings.rounds,
            "tokens_trained": sum(r.steps_trained for r in reports),
            "final_loss": reports[-1].loss,
            "mean_reward_first_round": reports[0].mean_reward,
            "mean_reward_last_round": reports[-1].mean_reward,
            "seconds": time.monotonic() - began,
            "threads": held.threads,
        },
    }
    save_lineage(out, lineage)
    return lineage
