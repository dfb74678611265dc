"""`HFChatPolicy`: a local Hugging Face causal LM (and LoRA adapter) as the engine's `Policy`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerBase

from adapters.chat import Message
from engine import EpisodeView, PolicyReply, Usage
from schemas.events import PolicyRef, SamplingParams
from training.hf.template import parse_reply, template_messages


class HFChatPolicy:
    """Decoding through the model's chat template (greedy, or sampled at `temperature` > 0 with a
    seeded generator); tool calls parsed from the text."""

    def __init__(
        self,
        model: Any,
        tokenizer: PreTrainedTokenizerBase,
        name: str,
        *,
        max_new_tokens: int = 256,
    ) -> None:
        self.model: Any = model
        self.model.eval()
        self.tokenizer = tokenizer
        self._name = name
        self.ref = PolicyRef(model=name, route="scripted")
        self.sampling = SamplingParams()
        self.max_new_tokens = max_new_tokens
        self.on_turn: Callable[[list[int], list[int]], None] | None = None
        """Called with each turn's prompt ids and generated ids (GRPO scores what was written)."""
        self.sample(0.0, 0)

    def sample(self, temperature: float, seed: int) -> None:
        """Decode at `temperature` from here on (0 = greedy); sampling is seeded with `seed`."""
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, not {temperature}")
        self.temperature = temperature
        self.generator = torch.Generator().manual_seed(seed)

    @classmethod
    def from_path(cls, path: Path, adapter: Path | None = None, *, name: str | None = None) -> HFChatPolicy:
        """Load from local folders only (no hub access)."""
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model: Any = AutoModelForCausalLM.from_pretrained(
            str(path), local_files_only=True, dtype=torch.float32
        )
        if adapter is not None:
            from training.lora import load_adapter

            model = load_adapter(model, adapter)
        return cls(model, tokenizer, name or (adapter.name if adapter else path.name))

    @property
    def name(self) -> str:
        return self._name

    def prompt_ids(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> list[int]:
        """The token ids the model is given for this conversation."""
        ids: Any = self.tokenizer.apply_chat_template(
            template_messages(messages),
            tools=[dict(t) for t in tools] or None,
            add_generation_prompt=True,
            tokenize=True,
        )
        return [int(i) for i in (ids["input_ids"] if hasattr(ids, "keys") else ids)]

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        """The next turn, decoded from `messages` alone (`view` is unused)."""
        prompt = self.prompt_ids(messages, tools)
        sampled = self.temperature > 0
        settings: dict[str, Any] = (
            {"do_sample": True, "temperature": self.temperature, "top_k": 0}
            if sampled
            else {"do_sample": False}
        )
        if sampled:  # generate draws from the global generator: seed it from ours, per turn
            torch.manual_seed(int(torch.randint(0, 2**62, (1,), generator=self.generator)))
        with torch.inference_mode():
            out = self.model.generate(
                torch.tensor([prompt]),
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                max_new_tokens=self.max_new_tokens,
                **settings,
                pad_token_id=self.tokenizer.pad_token_id,
                eos_token_id=self.tokenizer.convert_tokens_to_ids("<|im_end|>")
                if "<|im_end|>" in self.tokenizer.get_vocab()
                else self.tokenizer.eos_token_id,
            )
        new = out[0, len(prompt) :].tolist()
        if self.on_turn is not None:
            self.on_turn(prompt, new)
        text = str(self.tokenizer.decode(new, skip_special_tokens=False))
        calls = sum(len(m.get("tool_calls") or ()) for m in messages if m.get("role") == "assistant")
        reply = parse_reply(text.replace(str(self.tokenizer.pad_token or "<pad>"), ""), call_index=calls + 1)
        return replace(reply, usage=Usage(len(prompt), len(new)))
