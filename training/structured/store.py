"""A structured policy model on disk: `config.json`, `vocab.json`, `model.safetensors`, `manifest.json`.

The model hash (over the first three files) names the base an adapter was trained on.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safetensors.torch import load_file, save_file

from training.lineage import file_hash
from training.structured.model import ModelConfig, StructuredPolicyModel
from training.structured.vocab import Vocab

KIND = "loopline-structured"
FILES = ("config.json", "vocab.json", "model.safetensors")
MANIFEST = "manifest.json"


class ModelStoreError(ValueError):
    """A model folder that cannot be read."""


@dataclass
class StoredModel:
    """A loaded structured model and what describes it."""

    model: StructuredPolicyModel
    vocab: Vocab
    manifest: dict[str, Any]
    folder: Path

    @property
    def model_hash(self) -> str:
        return model_hash(self.folder)


def model_hash(folder: Path) -> str:
    """SHA-256 over the model's config, vocabulary and weights."""
    digest = hashlib.sha256()
    for name in FILES:
        digest.update(name.encode() + b"\0" + file_hash(folder / name).encode() + b"\n")
    return digest.hexdigest()


def save_model(folder: Path, model: StructuredPolicyModel, vocab: Vocab, manifest: dict[str, Any]) -> str:
    """Write the model folder (manifest last) and return the model hash."""
    folder.mkdir(parents=True, exist_ok=True)
    config = {"kind": KIND, **model.config.to_json()}
    (folder / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    vocab.save(folder / "vocab.json")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "model.safetensors"))
    digest = model_hash(folder)
    (folder / MANIFEST).write_text(
        json.dumps({**manifest, "model_hash": digest}, indent=1, default=str) + "\n"
    )
    return digest


def load_model(folder: Path) -> StoredModel:
    """A saved model; a folder without every file, or of another kind, is a clear error."""
    missing = [name for name in (*FILES, MANIFEST) if not (folder / name).is_file()]
    if missing:
        raise ModelStoreError(f"{folder} is not a structured policy model (missing {', '.join(missing)})")
    config = json.loads((folder / "config.json").read_text())
    if config.pop("kind", None) != KIND:
        raise ModelStoreError(f"{folder} holds a model of another kind")
    config["scalar_edges"] = tuple(tuple(edges) for edges in config["scalar_edges"])
    model = StructuredPolicyModel(ModelConfig(**config))
    model.load_state_dict(load_file(str(folder / "model.safetensors")))
    manifest = json.loads((folder / MANIFEST).read_text())
    return StoredModel(model.eval(), Vocab.load(folder / "vocab.json"), manifest, folder)
