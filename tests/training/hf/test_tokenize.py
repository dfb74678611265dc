"""Tokenizing rows for a causal LM: nothing is dropped without a count and a reason, and packed
sequences never attend to each other."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from training.data import load_dataset
from training.hf.sft import sft_hf
from training.hf.template import CHAT_TEMPLATE
from training.hf.tokenize import IGNORE, Tokenized, collate, pack, tokenize_row, tokenize_rows
from training.loop import LoopConfig
from training.lora import LLAMA_TARGETS, LoraSettings


def test_every_row_left_out_is_counted_with_its_reason(tiny_llama: Path, toy_dataset: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_llama), local_files_only=True)
    rows = load_dataset(toy_dataset).rows
    lengths = [len(t.input_ids) for t in tokenize_rows(tokenizer, rows, max_length=100_000).sequences]
    broken = rows[1].model_copy(deep=True)
    call = next(m for m in broken.messages if m.get("tool_calls"))["tool_calls"][0]
    call["function"]["arguments"] = "{not json"
    limit = sorted(lengths)[-1] - 1  # the longest row no longer fits
    done = tokenize_rows(tokenizer, [rows[0], broken, *rows[2:]], max_length=limit)
    too_long = sum(1 for i, n in enumerate(lengths) if n > limit and i != 1)
    assert too_long >= 1 and done.counts() == {"does-not-render": 1, "too-long": too_long}
    assert len(done.sequences) + len(done.skipped) == len(rows) and 1 not in done.kept
    assert "does-not-render" in done.report() and rows[1].meta.task_id in done.report()


def test_a_template_that_renders_a_turn_differently_later_is_reported_not_trained(
    tiny_llama: Path, toy_dataset: Path
) -> None:
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_llama), local_files_only=True)
    # the latest tool result is rendered with a marker: the prompt a turn is served with is then not
    # a prefix of the conversation the turn is trained in
    tokenizer.chat_template = CHAT_TEMPLATE.replace(
        "{% else %}{{ message['content'] }}<|im_end|>",
        "{% else %}{{ message['content'] }}{% if loop.last and message['role'] == 'tool' %} (latest){% endif %}<|im_end|>",
    )
    rows = load_dataset(toy_dataset).rows
    done = tokenize_rows(tokenizer, rows, max_length=100_000)
    assert done.sequences == [] and done.counts() == {"not-prefix": len(rows)}
    assert all("prefix by prefix" in s.detail for s in done.skipped)


def test_sft_records_the_rows_it_left_out(tiny_llama: Path, toy_dataset: Path, tmp_path: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_llama), local_files_only=True)
    rows = load_dataset(toy_dataset).rows
    lengths = sorted(len(t.input_ids) for t in tokenize_rows(tokenizer, rows, max_length=100_000).sequences)
    lineage = sft_hf(
        tiny_llama,
        toy_dataset,
        tmp_path / "a",
        settings=LoraSettings(r=2, alpha=4, target_modules=LLAMA_TARGETS, modules_to_save=()),
        loop=LoopConfig(epochs=1, batch_size=2),
        max_length=lengths[-1] - 1,
    )
    skipped = sum(1 for n in lengths if n > lengths[-1] - 1)
    assert lineage["rows_skipped"] == skipped and lineage["rows_skipped_by_reason"] == {"too-long": skipped}
    assert lineage["rows_used"] + lineage["rows_skipped"] == len(rows)
    assert lineage["rows_skipped_detail"][0]["reason"] == "too-long"


def test_packed_sequences_attend_only_to_themselves(tiny_llama: Path, toy_dataset: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_llama), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(tiny_llama), local_files_only=True, dtype=torch.float32)
    rows = load_dataset(toy_dataset).rows[:2]
    first, second = (tokenize_row(tokenizer, r, max_length=100_000) for r in rows)
    assert isinstance(first, Tokenized) and isinstance(second, Tokenized)
    (packed,) = pack([first, second], len(first.input_ids) + len(second.input_ids))
    lead, tail = (
        (first, second) if packed.input_ids[: len(first.input_ids)] == first.input_ids else (second, first)
    )
    pad = int(tokenizer.pad_token_id)
    with torch.no_grad():
        alone = model(**collate([tail], pad), use_cache=False).logits[0]
        together = model(**collate([packed, lead], pad), use_cache=False).logits[0, len(lead.input_ids) :]
        batch = collate([packed, lead], pad)
        assert "attention_mask" not in batch  # the mask comes from the restarting positions
        leaky = model(
            **{**batch, "attention_mask": torch.ones_like(batch["input_ids"])}, use_cache=False
        ).logits[0, len(lead.input_ids) :]
    assert torch.allclose(together, alone, atol=1e-5), "the second sequence sees only itself"
    assert not torch.allclose(leaky, alone, atol=1e-3), (
        "an all-ones mask lets it see the first (the test can fail)"
    )
    assert (batch["labels"][1, len(lead.input_ids) :] == IGNORE).all()  # padding is never learned
