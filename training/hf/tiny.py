"""Tiny random-weight Llama models with a tokenizer trained here: for tests and the benchmark.

Nothing downloads: the tokenizer is a byte-level BPE trained on the given texts with the chat
template's special tokens, and the weights come from a `LlamaConfig`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from training.hf.template import CHAT_TEMPLATE, SPECIAL_TOKENS


@dataclass(frozen=True)
class LlamaShape:
    """A Llama-architecture shape (the defaults are tiny; `bench/lora.py` also builds 8B)."""

    hidden_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    intermediate_size: int = 128
    vocab_size: int = 512
    max_position_embeddings: int = 4096

    def config(self, vocab_size: int | None = None) -> LlamaConfig:
        values = asdict(self) | ({"vocab_size": vocab_size} if vocab_size else {})
        return LlamaConfig(**values, tie_word_embeddings=False)


LLAMA_8B = LlamaShape(
    hidden_size=4096,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    intermediate_size=14336,
    vocab_size=128256,
    max_position_embeddings=8192,
)
"""Llama 3 8B's shape (random weights serve for speed measurements)."""


def train_tokenizer(texts: Iterable[str], vocab_size: int = 512) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer over `texts`, with the chat template and its special tokens."""
    core = Tokenizer(models.BPE(unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    core.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=core,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<pad>",
        unk_token="<unk>",
        chat_template=CHAT_TEMPLATE,
    )


def build_tiny_llama(
    folder: Path, texts: Iterable[str], shape: LlamaShape = LlamaShape(), *, seed: int = 0
) -> Path:
    """Train a tokenizer on `texts`, build a random-weight Llama of `shape`, save both to `folder`."""
    tokenizer = train_tokenizer(texts, shape.vocab_size)
    torch.manual_seed(seed)
    config = shape.config(vocab_size=len(tokenizer))
    config.pad_token_id = tokenizer.pad_token_id
    config.eos_token_id = tokenizer.eos_token_id
    config.bos_token_id = tokenizer.bos_token_id
    model = LlamaForCausalLM(config)  # type: ignore[no-untyped-call]
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder
