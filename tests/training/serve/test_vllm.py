"""The vLLM settings name the same adapters the embedded server loads, with runtime loading on."""

from __future__ import annotations

from pathlib import Path

from training.serve.vllm import VllmSettings


def test_vllm_settings_enable_runtime_lora_loading_under_the_same_names() -> None:
    settings = VllmSettings(
        Path("/models/llama"), "rcm", {"cycle-1": Path("/a/cycle-1"), "cycle-2": Path("/a/cycle-2")}
    )
    line = settings.shell()
    assert line.startswith("VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve /models/llama")
    args = settings.args()
    assert "--enable-lora" in args and args[args.index("--served-model-name") + 1] == "rcm"
    at = args.index("--lora-modules")
    assert args[at + 1 : at + 3] == ["cycle-1=/a/cycle-1", "cycle-2=/a/cycle-2"]


def test_vllm_keeps_room_for_champion_and_canary_at_least() -> None:
    args = VllmSettings(Path("/m"), "rcm", max_loras=1).args()
    assert args[args.index("--max-loras") + 1] == "2" and "--lora-modules" not in args
