"""The vLLM settings that serve the same names in production. Pure.

vLLM serves a Hugging Face base model with LoRA adapters: `--enable-lora` turns adapters on,
`--lora-modules NAME=PATH` preloads them under the names the bridge asks for, `--max-loras` is
how many sit on the GPU at once (champion and canary at least), `--max-lora-rank` the largest
rank, and `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` enables `/v1/load_lora_adapter` and
`/v1/unload_lora_adapter`, the endpoints `loopline serve-policy` also has. The structured
reference policy is not a causal LM, so vLLM cannot serve it; production uses a chat model.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class VllmSettings:
    """What a platform team sets to serve a base model and its adapters under fixed names."""

    base_model: Path
    served_name: str
    adapters: Mapping[str, Path] = field(default_factory=dict)
    max_loras: int = 4
    max_lora_rank: int = 16
    host: str = "0.0.0.0"
    port: int = 8000
    tool_call_parser: str = "hermes"

    def env(self) -> dict[str, str]:
        """Environment variables of the server process."""
        return {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}

    def args(self) -> list[str]:
        """`vllm serve` and its flags."""
        out = [
            "vllm",
            "serve",
            str(self.base_model),
            "--served-model-name",
            self.served_name,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--enable-lora",
            "--max-loras",
            str(max(self.max_loras, len(self.adapters), 2)),
            "--max-lora-rank",
            str(self.max_lora_rank),
            "--enable-auto-tool-choice",
            "--tool-call-parser",
            self.tool_call_parser,
        ]
        if self.adapters:
            out.append("--lora-modules")
            out += [f"{name}={path}" for name, path in self.adapters.items()]
        return out

    def shell(self) -> str:
        """One shell line: the environment, then the command."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env().items())
        return f"{env} {shlex.join(self.args())}"
