"""Small LoRA adapters of the tiny structured policy, and a release store that registers them, for
the policy server's tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from training.release.manager import ReleaseManager
from training.release.store import SqlReleaseStore


def tiny_adapter(base: Path, folder: Path, seed: int) -> Path:
    """A rank-2 adapter of `base` saved in `folder`, its weights drawn from `seed`."""
    import torch

    from training.lora import LoraSettings, attach
    from training.structured.store import load_model

    torch.manual_seed(seed)
    attach(load_model(base).model, LoraSettings(r=2, alpha=4)).save_pretrained(str(folder))
    return folder


def registered_adapters(
    db: Path, folders: Mapping[str, Path]
) -> tuple[ReleaseManager, Callable[[str], str | None]]:
    """A release store in `db` with each folder registered (gate passed) under its served name, and
    the fingerprint lookup a policy server is given (`registered`)."""
    store = SqlReleaseStore(f"sqlite:///{db}")
    store.create_schema()
    manager = ReleaseManager(store)
    for served_name, folder in folders.items():
        manager.register(
            folder,
            base_model="rcm-structured",
            gate_passed=True,
            served_name=served_name,
            adapter_id=served_name,
        )

    def registered(name: str) -> str | None:
        record = store.by_served_name(name)
        return record.fingerprint if record else None

    return manager, registered
