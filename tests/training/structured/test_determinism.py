"""The structured policy's LoRA is reproducible bit for bit on one CPU: one seed, one adapter,
in this process or another one (other hash seed); a resumed run ends where an uninterrupted one does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from envs.tasksets import manifest_hash
from training.data import DatasetSpec, LoadedTaskSet, build_dataset, write_dataset
from training.data.sources import task_family
from training.loop import LoopConfig, StepReport
from training.lora import LoraSettings
from training.structured.sft import sft_structured

LOOP = LoopConfig(epochs=1, batch_size=8, checkpoint_every=1)
SETTINGS = LoraSettings(r=4, alpha=8, dropout=0.1)

SCRIPT = """
import sys
from pathlib import Path
import torch
torch.set_num_threads(int(sys.argv[4]))  # the parent's count: another count adds in another order
from training.loop import LoopConfig
from training.lora import LoraSettings
from training.structured.sft import sft_structured
sft_structured(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]),
               settings=LoraSettings(r=4, alpha=8, dropout=0.1),
               loop=LoopConfig(epochs=1, batch_size=8, checkpoint_every=1))
"""


class Interrupted(Exception):
    """Stands for the process being killed right after a checkpoint."""


@pytest.fixture(scope="module")
def dataset(
    small_base: LoadedTaskSet, tiny_families: tuple[str, ...], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    tasks = tuple(t for t in small_base.tasks if task_family(t) in tiny_families)
    loaded = LoadedTaskSet(
        small_base.label, small_base.name, None, 0, manifest_hash([t.compute_hash() for t in tasks]), tasks
    )
    return write_dataset(
        build_dataset(DatasetSpec(name="tiny-det", primary=(loaded,))), tmp_path_factory.mktemp("data")
    )


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_file(str(folder / "adapter_model.safetensors"))


def _identical(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_one_seed_one_adapter_here_and_in_another_process(
    tiny_structured: Path, dataset: Path, tmp_path: Path
) -> None:
    sft_structured(tiny_structured, dataset, tmp_path / "first", settings=SETTINGS, loop=LOOP)
    sft_structured(tiny_structured, dataset, tmp_path / "second", settings=SETTINGS, loop=LOOP)
    assert _identical(_weights(tmp_path / "first"), _weights(tmp_path / "second"))
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            str(tiny_structured),
            str(dataset),
            str(tmp_path / "elsewhere"),
            str(torch.get_num_threads()),
        ],
        env=env,
        cwd=os.getcwd(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert _identical(_weights(tmp_path / "first"), _weights(tmp_path / "elsewhere"))
    assert (tmp_path / "first" / "vocab.json").read_bytes() == (
        tmp_path / "elsewhere" / "vocab.json"
    ).read_bytes()


def test_a_resumed_run_ends_where_an_uninterrupted_one_does(
    tiny_structured: Path, dataset: Path, tmp_path: Path
) -> None:
    sft_structured(tiny_structured, dataset, tmp_path / "straight", settings=SETTINGS, loop=LOOP)

    def stop_at_2(report: StepReport) -> None:
        if report.step == 2:
            raise Interrupted

    with pytest.raises(Interrupted):
        sft_structured(
            tiny_structured, dataset, tmp_path / "resumed", settings=SETTINGS, loop=LOOP, on_step=stop_at_2
        )
    lineage = sft_structured(tiny_structured, dataset, tmp_path / "resumed", settings=SETTINGS, loop=LOOP)
    assert lineage["training"]["resumed_from"] == 2
    assert _identical(_weights(tmp_path / "straight"), _weights(tmp_path / "resumed"))
