"""GRPO of the structured policy: k sampled rollouts per task through the environment, scored by the
task's verifier, group-relative advantages, and LoRA updates with a KL penalty to the frozen base,
for several on-policy rounds (each round samples with the adapter as the last one left it).

A rollout runs the same episode engine and verifier as evaluation and rejection sampling
(`envs.rollout.runner.run_rollouts`, environment seed `env_seed`); its reward is the verifier's
score (0 unless the outcome is right; 1 when every check holds). The policy records each step's
choice as it decodes (`StructuredPolicy.on_decision`), so the log-probability of exactly what it
did is scored (`training.structured.decisions`). The reference is the base with the adapter
disabled (peft's `disable_adapter`), so the KL is 0 before the first update.

A checkpoint after every round (trainable weights, optimizer state, the round reports) lets a
killed run resume; the draws and batch orders are functions of the seed, the round and the draw,
so a resumed run ends with the same adapter, bit for bit, as one that never stopped.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import torch
from peft import PeftModel

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
from training.lineage import code_version
from training.loop import trainable_state
from training.lora import LoraSettings, attach, save_lineage
from training.structured.decisions import Decision, StepDistributions, log_probs, step_kl
from training.structured.model import StructuredPolicyModel
from training.structured.policy import StructuredPolicy
from training.structured.store import load_model
from training.structured.templates import Template

CHECKPOINTS = ".checkpoint"
CHECKPOINT = "grpo.pt"


@dataclass(frozen=True)
class Rollout:
    """One sampled episode: its task, draw, reward and the steps the policy took."""

    task_key: str
    draw: int
    reward: float
    passed: bool
    steps: tuple[Decision, ...]


def sample_groups(
    policy: StructuredPolicy,
    sets: Sequence[LoadedTaskSet],
    settings: GrpoSettings,
    round_: int,
    *,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[Rollout]:
    """k rollouts of every task at the settings' temperature, each with the steps it took; the
    policy is greedy again after."""
    tasks = [t for s in sets for t in s.tasks]
    keys = [task_key(t) for t in tasks]
    found: list[Rollout] = []
    taken: list[Decision] = []
    episodes: list[tuple[Decision, ...]] = []

    def ended(record: EpisodeRecord) -> None:
        episodes.append(tuple(taken))
        taken.clear()
        if on_record is not None:
            on_record(record)

    policy.on_decision = taken.append
    try:
        for draw in range(settings.k):
            policy.sample(settings.temperature, draw_seed(settings.seed, round_, draw))
            episodes.clear()
            records = run_rollouts(
                tasks, policy, config=RolloutConfig(seed=settings.env_seed), on_record=ended
            )
            found += [
                Rollout(key, draw, r.verdict.score, r.verdict.passed, steps)
                for key, r, steps in zip(keys, records, episodes, strict=True)
            ]
    finally:
        policy.on_decision = None
        policy.sample(0.0, settings.seed)
    return found


def advantages_of(rollouts: Sequence[Rollout]) -> tuple[list[float], int, int]:
    """Each rollout's group-relative advantage (groups are a task's rollouts), the number of groups,
    and how many had no spread."""
    return keyed_advantages([r.task_key for r in rollouts], [r.reward for r in rollouts])


class GrpoTrainer:
    """The adapter, its optimizer and one round's update; state that a checkpoint holds."""

    def __init__(self, model: PeftModel, templates: Sequence[Template], settings: GrpoSettings) -> None:
        self.model, self.templates, self.settings = model, templates, settings
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.params, lr=settings.lr, weight_decay=settings.weight_decay)

    @property
    def policy_model(self) -> StructuredPolicyModel:
        """The adapted model, called as the structured model it wraps (peft forwards attributes)."""
        return cast(StructuredPolicyModel, self.model)

    def reference(self, steps: Sequence[Decision]) -> StepDistributions:
        """The steps' distributions under the base, adapter disabled (no gradients)."""
        with torch.no_grad(), self.model.disable_adapter():
            return log_probs(self.policy_model, steps, self.templates, temperature=self.settings.temperature)

    def update(
        self, steps: Sequence[Decision], advantages: Sequence[float], round_: int
    ) -> tuple[float, float]:
        """`epochs` passes of clipped policy-gradient steps with the KL penalty; (last loss, mean KL
        of the last pass)."""
        s = self.settings
        with torch.no_grad():
            old = torch.cat(
                [
                    log_probs(
                        self.policy_model,
                        steps[i : i + s.batch_size],
                        self.templates,
                        temperature=s.temperature,
                    ).action
                    for i in range(0, len(steps), s.batch_size)
                ]
            )
        adv = torch.tensor(advantages, dtype=torch.float32)
        loss_value, kls = float("nan"), list[float]()
        self.model.train()
        for epoch in range(s.epochs):
            kls = []
            for index in batches(len(steps), s, round_, epoch):
                chunk = [steps[j] for j in index]
                ref = self.reference(chunk)
                now = log_probs(self.policy_model, chunk, self.templates, temperature=s.temperature)
                kl = step_kl(now, ref)
                picked = torch.tensor(index)
                loss = grpo_loss(now.action, old[picked], adv[picked], kl, beta=s.kl, clip=s.clip)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()  # type: ignore[no-untyped-call]
                torch.nn.utils.clip_grad_norm_(self.params, s.max_grad_norm)
                self.optimizer.step()
                loss_value = float(loss.detach())
                kls.append(float(kl.detach().mean()))
        self.model.eval()
        return loss_value, sum(kls) / len(kls) if kls else 0.0

    def save(self, path: Path, rounds_done: int, reports: Sequence[RoundReport]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(
            {
                "rounds_done": rounds_done,
                "settings": self.settings.to_json(),
                "trainable": trainable_state(self.model),
                "optimizer": self.optimizer.state_dict(),
                "reports": [asdict(r) for r in reports],
                "rng": torch.get_rng_state(),
            },
            tmp,
        )
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    def resume(self, path: Path) -> tuple[int, list[RoundReport]]:
        if not path.is_file():
            return 0, []
        saved = torch.load(path, weights_only=False)
        if saved["settings"] != self.settings.to_json():
            raise ValueError(f"{path} is from another run (its settings differ); remove it to start over")
        with torch.no_grad():
            named = dict(self.model.named_parameters())
            for name, value in saved["trainable"].items():
                named[name].copy_(value)
        self.optimizer.load_state_dict(saved["optimizer"])
        torch.set_rng_state(saved["rng"])
        return int(saved["rounds_done"]), [RoundReport(**r) for r in saved["reports"]]


def grpo_structured(
    base: Path,
    sets: Sequence[LoadedTaskSet],
    out: Path,
    *,
    settings: GrpoSettings,
    lora: LoraSettings,
    parent_adapter_id: str | None = None,
    on_round: Callable[[RoundReport], None] | None = None,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> dict[str, Any]:
    """Train an adapter on `sets` by GRPO over the base model in `base`; write it to `out`; its lineage."""
    if not any(s.tasks for s in sets):
        raise ValueError("no tasks to sample")
    stored = load_model(base)
    vocab = stored.vocab
    began = time.monotonic()
    with deterministic(settings.seed, settings.threads) as held:
        model = attach(stored.model, lora)
        trainer = GrpoTrainer(model, vocab.templates, settings)
        checkpoint = out / CHECKPOINTS / CHECKPOINT
        start, reports = trainer.resume(checkpoint)
        policy = StructuredPolicy(trainer.policy_model, vocab, out.name)
        for round_ in range(start, settings.rounds):
            tick = time.monotonic()
            rollouts = sample_groups(policy, sets, settings, round_, on_record=on_record)
            advantages, groups, flat = advantages_of(rollouts)
            steps = [
                (step, a) for r, a in zip(rollouts, advantages, strict=True) if a != 0.0 for step in r.steps
            ]
            loss, kl = float("nan"), 0.0
            if steps:
                loss, kl = trainer.update([s for s, _ in steps], [a for _, a in steps], round_)
            report = RoundReport(
                round=round_,
                rollouts=len(rollouts),
                mean_reward=sum(r.reward for r in rollouts) / len(rollouts),
                pass_rate=sum(r.passed for r in rollouts) / len(rollouts),
                groups=groups,
                groups_without_spread=flat,
                steps_trained=len(steps),
                mean_kl=kl,
                loss=loss,
                seconds=time.monotonic() - tick,
            )
            reports.append(report)
            trainer.save(checkpoint, round_ + 1, reports)
            if on_round is not None:
                on_round(report)
        model.save_pretrained(str(out))
    vocab.save(out / "vocab.json")
    lineage = {
        "adapter_id": out.name,
        "kind": "loopline-structured-lora",
        "method": "grpo",
        "created_at": datetime.now(UTC).isoformat(),
        "base_model": {"folder": str(base), "hash": stored.model_hash, "name": stored.manifest.get("name")},
        "parent_adapter_id": parent_adapter_id,
        "dataset": rollout_dataset(sets),
        "task_set_versions": {s.name: s.version for s in sets},
        "hyperparameters": {"lora": lora.to_json(), "grpo": settings.to_json()},
        "code_version": code_version(),
        "templates_added": 0,
        "rounds": [asdict(r) for r in reports],
        "training": {
            "rounds": settings.rounds,
            "resumed_from": start,
            "final_loss": reports[-1].loss,
            "mean_reward_first_round": reports[0].mean_reward,
            "mean_reward_last_round": reports[-1].mean_reward,
            "seconds": time.monotonic() - began,
            "threads": held.threads,
        },
    }
    save_lineage(out, lineage)
    shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)
    return lineage
