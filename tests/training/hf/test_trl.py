"""TRL's `SFTTrainer` on exported rows: the token ids it trains on are serve-policy's, its
assistant-only loss covers exactly what the model writes, and it trains a LoRA the policy serves."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from training.data import load_dataset
from training.hf.policy import HFChatPolicy
from training.hf.template import parse_reply
from training.hf.tokenize import IGNORE, Tokenized, tokenize_row
from training.hf.trl_sft import TrlRun, sft_trl, trl_trainer
from training.loop import LoopConfig
from training.lora import LLAMA_TARGETS, LoraSettings

SETTINGS = LoraSettings(r=4, alpha=8, target_modules=LLAMA_TARGETS, modules_to_save=())


@pytest.fixture(scope="module")
def trl_run(
    tiny_llama: Path, toy_dataset: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[TrlRun, Path]:
    out = tmp_path_factory.mktemp("adapters") / "trl-adapter"
    run = sft_trl(
        tiny_llama, toy_dataset, out, settings=SETTINGS, loop=LoopConfig(epochs=2, batch_size=2, lr=5e-3)
    )
    return run, out


@pytest.mark.parametrize("which", ["toy_dataset", "rcm_dataset"])
def test_trl_trains_on_serve_policys_token_ids(
    which: str, tiny_llama: Path, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    dataset: Path = request.getfixturevalue(which)
    prepared = trl_trainer(
        tiny_llama, dataset, tmp_path, settings=SETTINGS, loop=LoopConfig(), max_length=100_000
    )
    policy = HFChatPolicy.from_path(tiny_llama)
    rows = load_dataset(dataset).rows
    train = prepared.trainer.train_dataset
    assert prepared.tokenization.skipped == [] and len(train) == len(rows)
    for index, example in enumerate(train):
        row = rows[prepared.tokenization.kept[index]]
        ids = list(example["input_ids"])
        turns = [i for i, m in enumerate(row.messages) if m["role"] == "assistant"]
        assert turns
        for turn in turns:
            # what serve-policy feeds the model before this turn (the OpenAI wire form: arguments as JSON text)
            prompt = policy.prompt_ids(row.messages[:turn], row.tools)
            assert ids[: len(prompt)] == prompt, (
                f"row {index}, turn {turn}: TRL's context differs from serve's"
            )
        ours = tokenize_row(policy.tokenizer, row, max_length=100_000)
        assert isinstance(ours, Tokenized)
        assert ids == ours.input_ids and list(example["labels"]) == ours.labels


def test_assistant_only_loss_covers_what_the_model_writes(
    trl_run: tuple[TrlRun, Path], tiny_llama: Path, toy_dataset: Path
) -> None:
    run, _ = trl_run
    policy = HFChatPolicy.from_path(tiny_llama)
    row = load_dataset(toy_dataset).rows[run.tokenization.kept[0]]
    example = run.train_dataset[0]
    ids, labels = list(example["input_ids"]), list(example["labels"])
    assert IGNORE in labels and any(label != IGNORE for label in labels)
    # each assistant span, decoded, is a turn the server parses back into the row's calls
    spans: list[list[int]] = []
    for token, label in zip(ids, labels, strict=True):
        if label == IGNORE:
            if spans and spans[-1]:
                spans.append([])
            continue
        if not spans:
            spans.append([])
        spans[-1].append(token)
    spans = [s for s in spans if s]
    turns = [m for m in row.messages if m["role"] == "assistant"]
    assert len(spans) == len(turns)
    for span, turn in zip(spans, turns, strict=True):
        text = policy.tokenizer.decode(span)
        assert text.endswith("<|im_end|>"), "the end-of-turn token is learned, so the model learns to stop"
        reply = parse_reply(text, call_index=1)
        import json

        expected = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in turn.get("tool_calls") or ()
        ]
        assert [(c.name, json.loads(c.arguments_raw)) for c in reply.tool_calls] == expected
        if not expected:
            assert reply.content == turn["content"]


def test_trl_trains_a_lora_the_policy_serves(
    trl_run: tuple[TrlRun, Path], tiny_llama: Path, toy_dataset: Path
) -> None:
    run, out = trl_run
    assert run.steps > 0 and run.final_loss == run.final_loss  # ran, and the loss is a number
    weights = load_file(str(out / "adapter_model.safetensors"))
    lora_b = [w for name, w in weights.items() if "lora_B" in name]
    assert lora_b and any(float(w.abs().sum()) > 0 for w in lora_b), "lora_B starts at zero: it trained"
    policy = HFChatPolicy.from_path(tiny_llama, out)
    policy.max_new_tokens = 4
    row = load_dataset(toy_dataset).rows[0]
    assert policy.complete(row.messages[:2], row.tools).usage.completion_tokens == 4
    assert torch.are_deterministic_algorithms_enabled() is False, "the run's settings are restored"


def test_arguments_as_json_text_are_refused_not_encoded_twice(tiny_llama: Path, toy_dataset: Path) -> None:
    from jinja2 import TemplateError

    policy = HFChatPolicy.from_path(tiny_llama)
    row = load_dataset(toy_dataset).rows[0]
    assert isinstance(
        next(m for m in row.messages if m.get("tool_calls"))["tool_calls"][0]["function"]["arguments"], str
    )
    with pytest.raises(TemplateError, match="arguments must be an object"):
        policy.tokenizer.apply_chat_template(row.messages, tools=row.tools, tokenize=False)
    assert policy.prompt_ids(row.messages, row.tools)  # serve-policy renders them as objects


def test_trl_with_one_seed_writes_one_adapter(
    trl_run: tuple[TrlRun, Path], tiny_llama: Path, toy_dataset: Path, tmp_path: Path
) -> None:
    _, out = trl_run
    sft_trl(
        tiny_llama,
        toy_dataset,
        tmp_path / "again",
        settings=SETTINGS,
        loop=LoopConfig(epochs=2, batch_size=2, lr=5e-3),
    )
    first, again = (load_file(str(f / "adapter_model.safetensors")) for f in (out, tmp_path / "again"))
    assert first.keys() == again.keys() and all(torch.equal(first[k], again[k]) for k in first)


def test_a_template_without_generation_markers_is_refused(
    tiny_llama: Path, toy_dataset: Path, tmp_path: Path
) -> None:
    import shutil

    from transformers import AutoTokenizer

    from training.hf.template import CHAT_TEMPLATE

    folder = tmp_path / "unmarked"
    shutil.copytree(tiny_llama, folder)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    tokenizer.chat_template = CHAT_TEMPLATE.replace("{% generation %}", "").replace("{% endgeneration %}", "")
    tokenizer.save_pretrained(str(folder))
    with pytest.raises(ValueError, match="generation"):
        trl_trainer(folder, toy_dataset, tmp_path / "work", settings=SETTINGS, loop=LoopConfig())
