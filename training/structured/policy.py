"""The structured policy as the engine's `Policy`: messages + tools in, one tool call or a final message out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from adapters.chat import Message, arguments_text
from engine import EpisodeView, PolicyReply, parse_arguments, written
from schemas.events import PolicyRef, SamplingParams
from training.structured.batch import decide
from training.structured.decisions import Decision
from training.structured.features import encode
from training.structured.model import StructuredPolicyModel
from training.structured.observe import observe
from training.structured.templates import realize
from training.structured.vocab import Vocab


class StructuredPolicy:
    """Decoding of a `StructuredPolicyModel` (greedy, or sampled at `temperature` > 0 from a seeded
    generator, as rejection sampling needs); every value it writes is copied from the conversation."""

    def __init__(
        self,
        model: StructuredPolicyModel,
        vocab: Vocab,
        name: str = "loopline-structured",
        *,
        temperature: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.model = model.eval()
        self.vocab = vocab
        self._name = name
        self.ref = PolicyRef(model=name, route="scripted")
        self.sampling = SamplingParams()
        self.on_decision: Callable[[Decision], None] | None = None
        """Told every step's choice (the observation, what was allowed, the template and items), as
        policy-gradient training needs to score the actions it took."""
        self.sample(temperature, seed)

    def sample(self, temperature: float, seed: int) -> None:
        """Decode at `temperature` from here on (0 = greedy), drawing from a generator seeded with `seed`."""
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, not {temperature}")
        self.temperature = temperature
        self.generator = torch.Generator().manual_seed(seed)

    @property
    def name(self) -> str:
        return self._name

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        """The next turn, from `messages` alone (`view` is unused); an observation no template fits
        ends the episode with a message saying so."""
        obs = observe(messages, tools)
        offered = set(obs.offered)
        allowed = [("final" in t) or (t.get("tool") in offered) for t in self.vocab.templates]
        encoded = encode(obs, self.vocab)
        with torch.inference_mode():
            try:
                chosen, picks = decide(
                    self.model,
                    encoded,
                    self.vocab.templates,
                    allowed,
                    temperature=self.temperature,
                    generator=self.generator,
                )
            except ValueError as exc:
                return written(f"no action fits: {exc}")
        if self.on_decision is not None:
            self.on_decision(Decision(encoded, tuple(allowed), chosen, tuple(picks)))
        tool, arguments = realize(self.vocab.templates[chosen], [obs.items[i].value for i in picks])
        if tool is None:
            return written(str(arguments))
        call_id = f"call-{len(obs.turns) + 1}"
        return written(None, (parse_arguments(call_id, tool, arguments_text(arguments)),))


def load_structured_policy(
    base: Path, adapter: Path | None = None, *, name: str | None = None
) -> StructuredPolicy:
    """The policy of a saved model folder, with a LoRA adapter folder merged in when given."""
    from training.lora import load_adapter
    from training.structured.store import load_model

    stored = load_model(base)
    if adapter is None:
        return StructuredPolicy(
            stored.model, stored.vocab, name or str(stored.manifest.get("name", base.name))
        )
    model = load_adapter(stored.model, adapter)
    vocab_path = adapter / "vocab.json"
    vocab = Vocab.load(vocab_path) if vocab_path.is_file() else stored.vocab
    assert isinstance(model, StructuredPolicyModel)
    return StructuredPolicy(model, vocab, name or adapter.name)
