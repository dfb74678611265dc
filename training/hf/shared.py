"""One base model in memory, many LoRA adapters: what serve-policy holds for a Hugging Face model.

`SharedBase` loads the base once; each adapter is loaded into the same peft model under its served
name (`PeftModel.load_adapter`), and a request runs with its adapter made active
(`set_adapter`), or with adapters off for the base (`disable_adapter`). Nothing is merged, so the
base weights stay as they are and an adapter costs only its own (small) matrices; vLLM serves
multi-LoRA the same way. A lock holds the model for one request or one load at a time, since the
active adapter is state of the model.

`release(name)` deletes an adapter's weights (serve-policy's unload).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerBase

from adapters.chat import Message
from engine import EpisodeView, PolicyReply
from training.hf.policy import HFChatPolicy


class SharedBase:
    """A base causal LM loaded once, with adapters loaded into it by name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(
            str(path), local_files_only=True
        )
        base: Any = AutoModelForCausalLM.from_pretrained(
            str(path), local_files_only=True, dtype=torch.float32
        )
        self.base: Any = base.eval()
        self.peft: Any = None
        """The peft model wrapping `base` once an adapter is loaded (it injects into `base`'s layers)."""
        self.lock = threading.RLock()

    @property
    def model(self) -> Any:
        """What runs: the peft model once there is an adapter, else the base."""
        return self.base if self.peft is None else self.peft

    def adapters(self) -> list[str]:
        """The names of the adapters loaded."""
        return [] if self.peft is None else list(self.peft.peft_config)

    def policy(self, adapter: Path | None, name: str) -> SharedAdapterPolicy:
        """The policy answering as `name`: the base (`adapter` None) or `adapter` loaded under `name`."""
        if adapter is None:
            return SharedAdapterPolicy(self, None, name)
        if not (adapter / "adapter_config.json").is_file():
            raise FileNotFoundError(f"{adapter} holds no LoRA adapter (adapter_config.json missing)")
        with self.lock:
            if name in self.adapters():
                self.peft.delete_adapter(name)
            if self.peft is None:
                self.peft = PeftModel.from_pretrained(self.base, str(adapter), adapter_name=name)
            else:
                self.peft.load_adapter(str(adapter), adapter_name=name)
            self.peft.eval()
        return SharedAdapterPolicy(self, name, name)

    def release(self, name: str) -> None:
        """Delete the adapter loaded under `name` (nothing when there is none)."""
        with self.lock:
            if name in self.adapters():
                self.peft.delete_adapter(name)

    @contextmanager
    def active(self, adapter: str | None) -> Iterator[None]:
        """Hold the model with `adapter` active (None: the base, adapters off)."""
        with self.lock:
            if adapter is None:
                with self.peft.disable_adapter() if self.peft is not None else nullcontext():
                    yield
                return
            if adapter not in self.adapters():
                raise KeyError(f"adapter {adapter!r} is not loaded")
            self.peft.set_adapter(adapter)
            yield


class SharedAdapterPolicy(HFChatPolicy):
    """`HFChatPolicy` over a `SharedBase`, with its adapter (or none) active while it answers."""

    def __init__(self, shared: SharedBase, adapter: str | None, name: str) -> None:
        self.shared = shared
        self.adapter = adapter
        super().__init__(shared.model, shared.tokenizer, name)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        with self.shared.active(self.adapter):
            self.model = self.shared.model
            return super().complete(messages, tools, view)

    def release(self) -> None:
        """Free this adapter's weights (the pool calls it on unload; the base has none)."""
        if self.adapter is not None:
            self.shared.release(self.adapter)
