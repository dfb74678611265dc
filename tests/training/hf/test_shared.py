"""serve-policy keeps one base model in memory and swaps adapters (peft multi-adapter): two adapters
served from one process share the base, answer as their own merged models do, and differ."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

from training.data import load_dataset
from training.hf.policy import HFChatPolicy
from training.hf.shared import SharedAdapterPolicy
from training.lora import LLAMA_TARGETS
from training.policies import policy_loader
from training.serve.pool import PolicyPool


def _random_adapter(base: Path, folder: Path, seed: int) -> Path:
    """A LoRA adapter with random (not zero) B matrices: it changes what the model says."""
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(str(base), local_files_only=True, dtype=torch.float32)
    config = LoraConfig(r=4, lora_alpha=16, target_modules=list(LLAMA_TARGETS), init_lora_weights=False)
    get_peft_model(model, config).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def two_adapters(tiny_llama: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("adapters")
    return _random_adapter(tiny_llama, root / "a", 1), _random_adapter(tiny_llama, root / "b", 2)


def _logits(policy: HFChatPolicy, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        if isinstance(policy, SharedAdapterPolicy):
            with policy.shared.active(policy.adapter):
                return policy.shared.model(torch.tensor([ids])).logits[0]
        return policy.model(torch.tensor([ids])).logits[0]


def test_two_adapters_share_one_base_and_answer_as_their_own_models(
    tiny_llama: Path, two_adapters: tuple[Path, Path], toy_dataset: Path
) -> None:
    load = policy_loader(tiny_llama)
    base = load(None, "base")
    a, b = load(two_adapters[0], "champion"), load(two_adapters[1], "canary")
    assert isinstance(base, SharedAdapterPolicy) and isinstance(a, SharedAdapterPolicy)
    assert isinstance(b, SharedAdapterPolicy)
    assert a.shared is b.shared is base.shared and a.shared.adapters() == ["champion", "canary"]
    row = load_dataset(toy_dataset).rows[0]
    messages = [row.messages[1]]  # the work item alone: a short prompt, a quick test
    ids = a.prompt_ids(messages, [])
    fresh_base = HFChatPolicy.from_path(tiny_llama)
    held = [p for n, p in a.shared.model.named_parameters() if "lora_" not in n]
    assert sum(p.numel() for p in held) == sum(p.numel() for p in fresh_base.model.parameters())
    assert a.model is b.model and base.shared.base is a.shared.base, "one copy of the base's weights"
    merged = [HFChatPolicy.from_path(tiny_llama, folder) for folder in two_adapters]
    for served, alone in zip((base, a, b), (fresh_base, *merged), strict=True):
        assert torch.allclose(_logits(served, ids), _logits(alone, ids), atol=1e-4), served.name
    assert not torch.allclose(_logits(a, ids), _logits(b, ids), atol=1e-2), "the adapters differ"
    assert not torch.allclose(_logits(a, ids), _logits(base, ids), atol=1e-2), "an adapter changes the base"

    for policy in (a, b, base, a):  # swapping back and forth
        policy.max_new_tokens = 6
    replies = [p.complete(messages, []) for p in (a, b, base, a)]
    merged[0].max_new_tokens = merged[1].max_new_tokens = fresh_base.max_new_tokens = 6
    expected = [m.complete(messages, []) for m in (merged[0], merged[1], fresh_base, merged[0])]
    assert replies == expected and replies[0] != replies[1]


def test_unloading_an_adapter_frees_it_from_the_shared_base(
    tiny_llama: Path, two_adapters: tuple[Path, Path]
) -> None:
    pool = PolicyPool(policy_loader(tiny_llama), "base", root=two_adapters[0].parent)
    pool.load("cycle-1", two_adapters[0])
    pool.load("cycle-2", two_adapters[1])
    first = pool.get("cycle-1").policy
    assert isinstance(first, SharedAdapterPolicy)
    shared = first.shared
    assert shared.adapters() == ["cycle-1", "cycle-2"]
    pool.unload("cycle-1")
    assert shared.adapters() == ["cycle-2"]
    pool.unload("cycle-2")
    assert shared.adapters() == []
    again, fresh = pool.load("cycle-1", two_adapters[0])
    assert fresh and shared.adapters() == ["cycle-1"]
    policy = again.policy
    assert isinstance(policy, SharedAdapterPolicy)
    policy.max_new_tokens = 2
    assert policy.complete([{"role": "user", "content": "hi"}], []).usage.completion_tokens == 2
