"""A Hugging Face causal LM behind the same interface, data and LoRA code (tiny random Llama)."""

from __future__ import annotations

import json
from pathlib import Path

from training.hf.policy import HFChatPolicy
from training.hf.sft import sft_hf
from training.hf.template import parse_reply
from training.hf.tokenize import IGNORE, Skipped, Tokenized, pack, tokenize_row
from training.loop import LoopConfig
from training.lora import LLAMA_TARGETS, LoraSettings, read_lineage


def test_labels_cover_exactly_the_assistant_turns(tiny_llama: Path, toy_dataset: Path) -> None:
    from training.data import load_dataset

    policy = HFChatPolicy.from_path(tiny_llama)
    row = load_dataset(toy_dataset).rows[0]
    tokens = tokenize_row(policy.tokenizer, row, max_length=100_000)
    assert isinstance(tokens, Tokenized)
    learned = policy.tokenizer.decode(
        [i for i, label in zip(tokens.input_ids, tokens.labels, strict=True) if label != IGNORE]
    )
    calls = [m for m in row.messages if m["role"] == "assistant"]
    assert learned.count("<tool_call>") == sum(len(m.get("tool_calls") or ()) for m in calls)
    assert "Work item" not in learned and '"outcome"' not in learned  # no prompt, no tool results
    short = tokenize_row(policy.tokenizer, row, max_length=10)
    assert isinstance(short, Skipped) and short.reason == "too-long"


def test_packing_keeps_every_sequence_whole() -> None:
    seqs = [Tokenized([1] * n, [1] * n, list(range(n))) for n in (5, 4, 3, 2)]
    packs = pack(seqs, 7)
    assert [len(p.input_ids) for p in packs] == [5, 7, 2]
    assert all(len(p.input_ids) <= 7 for p in packs) and all(p.position_ids[0] == 0 for p in packs)


def test_lora_sft_saves_an_adapter_the_policy_loads(
    tiny_llama: Path, toy_dataset: Path, tmp_path: Path
) -> None:
    settings = LoraSettings(r=4, alpha=8, target_modules=LLAMA_TARGETS, modules_to_save=())
    out = tmp_path / "hf-adapter"
    sft_hf(tiny_llama, toy_dataset, out, settings=settings, loop=LoopConfig(epochs=1, batch_size=2, lr=1e-3))
    lineage = read_lineage(out)
    assert lineage["kind"] == "hf-causal-lm-lora" and lineage["hyperparameters"]["dtype"] == "fp32"
    assert lineage["rows_used"] == 4 and lineage["base_model"]["hash"]
    policy = HFChatPolicy.from_path(tiny_llama, out)
    policy.max_new_tokens = 6
    row = json.loads((toy_dataset / "data.jsonl").read_text().splitlines()[0])
    reply = policy.complete(row["messages"][:2], row["tools"])
    assert reply.usage.prompt_tokens and reply.usage.completion_tokens == 6


def test_tool_calls_are_read_in_hermes_and_bare_json_forms() -> None:
    hermes = parse_reply(
        '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": "T-1"}}</tool_call><|im_end|>',
        call_index=3,
    )
    assert [(c.call_id, c.name, json.loads(c.arguments_raw)) for c in hermes.tool_calls] == [
        ("call-3", "get_ticket", {"ticket_id": "T-1"})
    ]
    bare = parse_reply('{"name": "escalate", "parameters": {"reason": "x"}}', call_index=1)
    assert bare.tool_calls[0].name == "escalate" and json.loads(bare.tool_calls[0].arguments_raw) == {
        "reason": "x"
    }
    assert parse_reply("All done.<|im_end|>", call_index=1).content == "All done."
    broken = parse_reply("<tool_call>{not json</tool_call>", call_index=1)
    assert broken.tool_calls[0].name == "" and broken.tool_calls[0].arguments_raw == "{not json"
