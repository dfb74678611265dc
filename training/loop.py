"""The training loop every model here shares: fixed seeds, length-bucketed batches, AdamW with warm-up
and cosine decay, gradient clipping, checkpoints with resume, and a progress callback.

Batches depend only on the seed and the epoch, and a checkpoint holds the trainable weights, the
optimizer and scheduler state, torch's generator and the step, so a run killed mid-way and started
again ends with the same weights, bit for bit, as one that never stopped. A run holds
`training.determinism.deterministic` (deterministic kernels, a fixed thread count), so two runs
with one seed on one CPU end with identical weights. fp32 on CPU; callers choose autocast on GPU.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import torch
from torch import Tensor, nn

from training.determinism import deterministic

E = TypeVar("E")
CHECKPOINT = "checkpoint.pt"
FLOOR = 0.02
"""The learning rate at the end of the schedule, as a share of the peak."""


@dataclass(frozen=True)
class LoopConfig:
    """Optimisation settings (recorded with every model and adapter)."""

    epochs: int = 8
    batch_size: int = 32
    lr: float = 2e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    """Share of the steps spent warming the learning rate up."""
    max_grad_norm: float = 1.0
    seed: int = 0
    checkpoint_every: int = 50
    """Optimizer steps between checkpoints (and always after the last)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StepReport:
    """What the progress callback is told after every optimizer step."""

    step: int
    total: int
    epoch: int
    loss: float
    metrics: dict[str, float]
    examples_per_s: float
    resumed_from: int
    """The step the run started from (0 unless it resumed a checkpoint)."""


@dataclass(frozen=True)
class LoopResult:
    """How training went."""

    steps: int
    resumed_from: int
    final_loss: float
    mean_loss_last_epoch: float
    seconds: float
    examples: int
    threads: int
    """The intra-op CPU threads it ran with (other counts give other, equally valid, bits)."""


LossFn = Callable[[Sequence[E]], tuple[Tensor, dict[str, float]]]


class _Schedule:
    """Linear warm-up then cosine decay to `FLOOR` of the peak, as a multiplier of the learning rate."""

    def __init__(self, total: int, warmup: float) -> None:
        self.total, self.warmup = total, max(1, int(total * warmup))

    def __call__(self, step: int) -> float:
        if step < self.warmup:
            return (step + 1) / self.warmup
        progress = (step - self.warmup) / max(1, self.total - self.warmup)
        return FLOOR + (1.0 - FLOOR) * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def epoch_batches(sizes: Sequence[int], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """The batches of one epoch: examples of similar size together (less padding), batch order
    shuffled; a function of the seed and the epoch only."""
    rng = random.Random(f"{seed}:{epoch}")
    jitter = [rng.random() for _ in sizes]
    order = sorted(range(len(sizes)), key=lambda i: sizes[i] + 30.0 * jitter[i])
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return batches


def trainable_state(module: nn.Module) -> dict[str, Tensor]:
    """The parameters that train (all of them, or an adapter's), detached copies."""
    return {n: p.detach().clone() for n, p in module.named_parameters() if p.requires_grad}


class TrainingLoop(Generic[E]):
    """Trains `module`'s trainable parameters on `examples` with `loss_fn`."""

    def __init__(
        self,
        module: nn.Module,
        loss_fn: LossFn[E],
        examples: Sequence[E],
        sizes: Sequence[int],
        config: LoopConfig,
        *,
        checkpoint_dir: Path | None = None,
        on_step: Callable[[StepReport], None] | None = None,
    ) -> None:
        if len(examples) != len(sizes):
            raise ValueError("one size per example")
        if not examples:
            raise ValueError("nothing to train on")
        self.module, self.loss_fn, self.examples, self.sizes = module, loss_fn, examples, sizes
        self.config, self.checkpoint_dir, self.on_step = config, checkpoint_dir, on_step
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.params, lr=config.lr, weight_decay=config.weight_decay)
        self.per_epoch = math.ceil(len(examples) / config.batch_size)
        self.total = config.epochs * self.per_epoch
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, _Schedule(self.total, config.warmup)
        )

    def run(self) -> LoopResult:
        """Train to the end, resuming from the checkpoint in `checkpoint_dir` when there is one."""
        with deterministic(self.config.seed) as held:
            return self._run(held.threads)

    def _run(self, threads: int) -> LoopResult:
        start = self._resume()
        began = time.monotonic()
        losses: list[float] = []
        loss_value = float("nan")
        batches: list[list[int]] = []
        for step in range(start, self.total):
            epoch, index = divmod(step, self.per_epoch)
            if index == 0 or not batches:
                batches = epoch_batches(self.sizes, self.config.batch_size, self.config.seed, epoch)
                losses = [] if index == 0 else losses
            chunk = [self.examples[i] for i in batches[index]]
            self.module.train()
            loss, metrics = self.loss_fn(chunk)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(self.params, self.config.max_grad_norm)
            self.optimizer.step()
            self.scheduler.step()
            loss_value = float(loss.detach())
            losses.append(loss_value)
            if self.checkpoint_dir is not None and (
                (step + 1) % self.config.checkpoint_every == 0 or step + 1 == self.total
            ):
                self._save(step + 1)
            if self.on_step is not None:
                done = (step + 1 - start) * self.config.batch_size
                self.on_step(
                    StepReport(
                        step=step + 1,
                        total=self.total,
                        epoch=epoch,
                        loss=loss_value,
                        metrics=metrics,
                        examples_per_s=done / max(1e-9, time.monotonic() - began),
                        resumed_from=start,
                    )
                )
        return LoopResult(
            steps=self.total,
            resumed_from=start,
            final_loss=loss_value,
            mean_loss_last_epoch=sum(losses) / len(losses) if losses else float("nan"),
            seconds=time.monotonic() - began,
            examples=len(self.examples),
            threads=threads,
        )

    def _resume(self) -> int:
        path = self.checkpoint_dir / CHECKPOINT if self.checkpoint_dir is not None else None
        if path is None or not path.is_file():
            return 0
        saved = torch.load(path, weights_only=False)
        if saved["total"] != self.total or saved["config"] != self.config.to_json():
            raise ValueError(f"{path} is from another run (its settings differ); remove it to start over")
        with torch.no_grad():
            named = dict(self.module.named_parameters())
            for name, value in saved["trainable"].items():
                named[name].copy_(value)
        self.optimizer.load_state_dict(saved["optimizer"])
        self.scheduler.load_state_dict(saved["scheduler"])
        torch.set_rng_state(saved["rng"])
        return int(saved["step"])

    def _save(self, step: int) -> None:
        assert self.checkpoint_dir is not None
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        path = self.checkpoint_dir / CHECKPOINT
        tmp = path.with_suffix(".tmp")
        torch.save(
            {
                "step": step,
                "total": self.total,
                "config": self.config.to_json(),
                "trainable": trainable_state(self.module),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
                "rng": torch.get_rng_state(),
            },
            tmp,
        )
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
