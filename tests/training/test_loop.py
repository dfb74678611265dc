"""The training loop resumes a killed run and ends where an uninterrupted run ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch

from training.loop import CHECKPOINT, LoopConfig, StepReport, TrainingLoop, epoch_batches

SCRIPT = """
import sys, time, torch
from collections.abc import Sequence
from pathlib import Path
from training.loop import LoopConfig, TrainingLoop
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
xs = [torch.randn(4, generator=torch.Generator().manual_seed(i)) for i in range(40)]
def loss_fn(batch):
    x = torch.stack(list(batch))
    return ((model(x).squeeze(-1) - x.sum(-1)) ** 2).mean(), {}
def slow(report):
    time.sleep(float(sys.argv[3]))
config = LoopConfig(epochs=6, batch_size=8, lr=1e-2, seed=3, checkpoint_every=2)
TrainingLoop(model, loss_fn, xs, [1] * len(xs), config, checkpoint_dir=Path(sys.argv[1]), on_step=slow).run()
torch.save(model.state_dict(), sys.argv[2])
"""


def _run(folder: Path, out: Path, delay: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(folder), str(out), str(delay)], cwd=os.getcwd()
    )


def test_a_run_killed_mid_way_resumes_to_the_same_weights_as_an_uninterrupted_one(tmp_path: Path) -> None:
    straight = _run(tmp_path / "a", tmp_path / "a.pt", 0.0)
    assert straight.wait(timeout=120) == 0
    killed = _run(tmp_path / "b", tmp_path / "b.pt", 0.15)
    checkpoint = tmp_path / "b" / CHECKPOINT
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (checkpoint.exists() and torch.load(checkpoint)["step"] >= 6):
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    assert not (tmp_path / "b.pt").exists()
    step_at_kill = torch.load(checkpoint)["step"]
    assert 0 < step_at_kill < 30
    resumed = _run(tmp_path / "b", tmp_path / "b.pt", 0.0)
    assert resumed.wait(timeout=120) == 0
    a, b = torch.load(tmp_path / "a.pt"), torch.load(tmp_path / "b.pt")
    for name in a:
        assert torch.equal(a[name], b[name]), (
            f"{name}: a resumed run ends bit for bit where an uninterrupted one does"
        )


def test_a_checkpoint_of_other_settings_is_refused(tmp_path: Path) -> None:
    model = torch.nn.Linear(2, 1)
    xs = [torch.ones(2)] * 4

    def loss_fn(batch: Sequence[torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        return model(torch.stack(list(batch))).pow(2).mean(), {}

    TrainingLoop(
        model, loss_fn, xs, [1] * 4, LoopConfig(epochs=1, batch_size=2), checkpoint_dir=tmp_path
    ).run()
    other = TrainingLoop(
        model, loss_fn, xs, [1] * 4, LoopConfig(epochs=2, batch_size=2), checkpoint_dir=tmp_path
    )
    with pytest.raises(ValueError, match="from another run"):
        other.run()


def test_progress_is_reported_after_every_step() -> None:
    model = torch.nn.Linear(2, 1)
    seen: list[StepReport] = []

    def loss_fn(batch: Sequence[torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        return model(torch.stack(list(batch))).pow(2).mean(), {"n": float(len(batch))}

    TrainingLoop(
        model, loss_fn, [torch.ones(2)] * 5, [1] * 5, LoopConfig(epochs=2, batch_size=2), on_step=seen.append
    ).run()
    assert [r.step for r in seen] == [1, 2, 3, 4, 5, 6] and seen[-1].total == 6
    assert sorted(r.metrics["n"] for r in seen) == [1.0, 1.0, 2.0, 2.0, 2.0, 2.0]


def test_batches_depend_only_on_seed_and_epoch() -> None:
    sizes = list(range(50))
    assert epoch_batches(sizes, 8, 1, 0) == epoch_batches(sizes, 8, 1, 0)
    assert epoch_batches(sizes, 8, 1, 0) != epoch_batches(sizes, 8, 1, 1)
    assert sorted(i for b in epoch_batches(sizes, 8, 1, 0) for i in b) == sizes
