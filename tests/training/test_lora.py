"""LoRA adapters (peft) over the structured policy: trained, saved with lineage, reloaded."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from training.data import ChatRow, DatasetSpec, LoadedTaskSet, build_dataset, write_dataset
from training.data.sources import only_families
from training.loop import LoopConfig
from training.lora import LoraSettings, attach, load_adapter, read_lineage
from training.structured.batch import collate
from training.structured.examples import prepare
from training.structured.model import StructuredPolicyModel
from training.structured.sft import sft_structured
from training.structured.store import load_model, save_model


def test_an_adapter_learns_a_new_family_and_is_saved_with_its_lineage(
    tiny_structured: Path, small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    dataset = write_dataset(
        build_dataset(DatasetSpec(name="new", primary=(only_families(small_base, frozenset({"carc:45"})),))),
        tmp_path / "datasets",
    )
    out = tmp_path / "adapters" / "a1"
    lineage = sft_structured(
        tiny_structured,
        dataset,
        out,
        settings=LoraSettings(r=4, alpha=8),
        loop=LoopConfig(epochs=2, batch_size=8),
    )
    assert {p.name for p in out.iterdir()} >= {
        "adapter_config.json",
        "adapter_model.safetensors",
        "lineage.json",
        "vocab.json",
    }
    saved = read_lineage(out)
    assert saved == json.loads(json.dumps(lineage, default=str))
    assert saved["base_model"]["hash"] == load_model(tiny_structured).model_hash
    assert saved["dataset"]["content_hash"] and saved["task_set_versions"] == {"rcm-base": None}
    assert saved["hyperparameters"]["lora"]["r"] == 4 and saved["code_version"]
    assert saved["templates_added"] > 0  # a contractual write-off is an action the base never saw


def test_a_merged_adapter_gives_the_same_outputs_as_the_unmerged_one(
    tiny_structured: Path, tiny_rows: list[ChatRow]
) -> None:
    stored = load_model(tiny_structured)
    model = attach(stored.model, LoraSettings(r=4, alpha=8))
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.05)
    folder = Path(str(tiny_structured) + "-adapter")
    model.save_pretrained(str(folder))
    batch = collate([s.encoded for s in prepare(tiny_rows, stored.vocab).steps[:4]])
    with torch.no_grad():
        state_a, _ = model.encode(batch)
        merged = load_adapter(load_model(tiny_structured).model, folder)
        state_b, _ = merged.encode(batch)  # type: ignore[operator]
        plain, _ = load_model(tiny_structured).model.encode(batch)
    torch.testing.assert_close(state_a, state_b, atol=1e-5, rtol=1e-4)
    assert not torch.allclose(state_a, plain, atol=1e-4)


def test_rows_with_more_arguments_than_the_base_models_slot_table_are_skipped_not_a_crash(
    tiny_structured: Path, small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    rows = build_dataset(DatasetSpec(name="new", primary=(small_base,))).rows
    stored = load_model(tiny_structured)
    vocab = stored.vocab
    widest = max(len(s.slots) for s in prepare(rows, vocab, grow=True).steps)
    narrow = prepare(rows, vocab, grow=True, max_slots=widest - 1)
    assert all(len(s.slots) < widest for s in narrow.steps)
    assert 0 < narrow.rows_used < len(rows) and narrow.rows_skipped > 0
    # a base whose slot table holds fewer arguments than any row needs: a clear error, not an IndexError
    tight = tmp_path / "tight-base"
    config = replace(stored.model.config, max_slots=1)  # every write names at least two arguments
    save_model(tight, StructuredPolicyModel(config), stored.vocab, {"name": "tight"})
    dataset = write_dataset(build_dataset(DatasetSpec(name="all", primary=(small_base,))), tmp_path / "d")
    with pytest.raises(ValueError, match="slot table"):
        sft_structured(
            tight, dataset, tmp_path / "a", settings=LoraSettings(r=4, alpha=8), loop=LoopConfig(epochs=1)
        )
