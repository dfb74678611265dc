"""Build the embedded stack's reference policy: a structured model trained from scratch on the gold
trajectories of generated base tasks (seeds the evaluation never uses), cached under the state folder.

A folder whose manifest records the same bootstrap key (dataset hash, model shape, loop settings) is
reused as it is; a run that was killed resumes from its checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import torch

from training.data import ChatRow, DatasetSpec, build_dataset, load_task_set, write_dataset
from training.determinism import seed_everything
from training.lineage import code_version
from training.loop import LoopConfig, LoopResult, StepReport, TrainingLoop
from training.structured.batch import loss, template_weights
from training.structured.examples import Prepared, Step, prepare, vocab_from_rows
from training.structured.features import scalar_bins
from training.structured.model import ModelConfig, StructuredPolicyModel
from training.structured.store import MANIFEST, load_model, save_model
from training.structured.vocab import Vocab

CHECKPOINTS = ".checkpoint"
HEADS = ("templates", "compositional")


@dataclass(frozen=True)
class BootstrapSpec:
    """What the reference policy is trained on, and its shape."""

    task_set: str = "rcm-base"
    seeds: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    """Generator seeds of the training tasks (the held-out evaluation uses seed 0)."""
    d_model: int = 96
    layers: int = 3
    heads: int = 4
    loop: LoopConfig = field(default_factory=lambda: LoopConfig(epochs=10, batch_size=32, lr=2e-3))

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "loop": self.loop.to_json()}


Progress = Callable[[str, int, int], None]
"""(stage, done, total)."""


@dataclass
class Fitted:
    """A structured model trained from scratch, its vocabulary and how training went."""

    model: StructuredPolicyModel
    vocab: Vocab
    prepared: Prepared
    result: LoopResult


def fit_structured(
    rows: Sequence[ChatRow],
    *,
    d_model: int,
    layers: int,
    heads: int,
    loop: LoopConfig,
    checkpoint_dir: Path | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    progress: Progress | None = None,
) -> Fitted:
    """Vocabulary, encoded steps, a fresh model, and training from scratch on `rows`."""
    tell = progress or (lambda stage, done, total: None)
    vocab = vocab_from_rows(rows)
    prepared = prepare(rows, vocab, progress=lambda done, total: tell("encoding", done, total))
    seed_everything(loop.seed)  # the adapter's (or model's) initial weights
    config = ModelConfig(
        paths=len(vocab.paths),
        values=len(vocab.values),
        qualifiers=len(vocab.qualifiers),
        tools=len(vocab.tools),
        templates=vocab.template_capacity,
        max_slots=max([ModelConfig.max_slots, *(len(s.slots) for s in prepared.steps)]),
        d_model=d_model,
        layers=layers,
        heads=heads,
        ff=2 * d_model,
        scalar_edges=tuple(tuple(e) for e in scalar_bins([s.encoded for s in prepared.steps])),
    )
    model = StructuredPolicyModel(config)
    n_templates = len(vocab.templates)
    weights = template_weights(prepared.steps, n_templates)

    def loss_fn(steps: Sequence[Step]) -> tuple[torch.Tensor, dict[str, float]]:
        return loss(model, steps, n_templates, weights)

    result = TrainingLoop(
        model,
        loss_fn,
        prepared.steps,
        [len(s.encoded.kinds) for s in prepared.steps],
        loop,
        checkpoint_dir=checkpoint_dir,
        on_step=on_step,
    ).run()
    return Fitted(model, vocab, prepared, result)


def bootstrap(
    spec: BootstrapSpec,
    *,
    root: Path,
    taskset_root: Path,
    name: str = "rcm-structured",
    progress: Progress | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    head: str = "templates",
) -> Path:
    """The reference policy's model folder under `root/models/name`, trained if not already there.

    `head` is the decision head: `templates` (the default) or `compositional` (the decoder of
    `training.structured.composed`, which builds each call from its schema)."""
    if head not in HEADS:
        raise ValueError(f"head must be one of {', '.join(HEADS)}, not {head!r}")
    tell = progress or (lambda stage, done, total: None)
    sets = tuple(load_task_set(spec.task_set, root=taskset_root, seed=s) for s in spec.seeds)
    dataset = build_dataset(
        DatasetSpec(name=f"bootstrap-{name}", primary=sets),
        progress=lambda done, total: tell("rendering", done, total),
    )
    write_dataset(dataset, root / "datasets")
    key = hashlib.sha256(
        json.dumps(
            {"dataset": dataset.manifest.content_hash, "spec": spec.to_json()}
            | ({} if head == "templates" else {"head": head}),
            sort_keys=True,
        ).encode()
    ).hexdigest()
    folder = root / "models" / name
    if (folder / MANIFEST).is_file():
        if json.loads((folder / MANIFEST).read_text()).get("bootstrap_key") == key and _loads(folder):
            return folder
        shutil.rmtree(folder)
    about: dict[str, object] = {
        "name": name,
        "bootstrap_key": key,
        "created_at": datetime.now(UTC).isoformat(),
        "spec": spec.to_json(),
        "head": head,
        "dataset": dataset.manifest.model_dump(mode="json"),
        "task_set_versions": {s.label: s.set_hash for s in sets},
        "code_version": code_version(),
    }
    if head == "compositional":
        return _bootstrap_composed(spec, dataset.rows, folder, about, on_step)
    fit = fit_structured(
        dataset.rows,
        d_model=spec.d_model,
        layers=spec.layers,
        heads=spec.heads,
        loop=spec.loop,
        checkpoint_dir=folder / CHECKPOINTS,
        on_step=on_step,
        progress=tell,
    )
    model, vocab, prepared, result = fit.model, fit.vocab, fit.prepared, fit.result
    n_templates = len(vocab.templates)
    save_model(
        folder,
        model,
        vocab,
        {
            "name": name,
            "kind": "loopline-structured",
            "bootstrap_key": key,
            "created_at": datetime.now(UTC).isoformat(),
            "spec": spec.to_json(),
            "dataset": dataset.manifest.model_dump(mode="json"),
            "task_set_versions": {s.label: s.set_hash for s in sets},
            "rows_used": prepared.rows_used,
            "rows_skipped": prepared.rows_skipped,
            "steps": len(prepared.steps),
            "templates": n_templates,
            "parameters": sum(p.numel() for p in model.parameters()),
            "training": asdict(result),
            "code_version": code_version(),
        },
    )
    shutil.rmtree(folder / CHECKPOINTS, ignore_errors=True)
    return folder


def _loads(folder: Path) -> bool:
    from training.structured.composed import is_composed, load_composed

    try:
        load_composed(folder) if is_composed(folder) else load_model(folder)
    except (ValueError, KeyError, OSError):
        return False
    return True


def _bootstrap_composed(
    spec: BootstrapSpec,
    rows: Sequence[ChatRow],
    folder: Path,
    about: dict[str, object],
    on_step: Callable[[StepReport], None] | None,
) -> Path:
    from training.structured.composed import save_composed
    from training.structured.composed_policy import fit_composed

    fit = fit_composed(
        rows,
        d_model=spec.d_model,
        layers=spec.layers,
        heads=spec.heads,
        loop=spec.loop,
        checkpoint_dir=folder / CHECKPOINTS,
        on_step=on_step,
    )
    save_composed(
        folder,
        fit.model,
        fit.vocab,
        fit.composed,
        about
        | {
            "kind": "loopline-structured-composed",
            "rows_used": fit.rows_used,
            "rows_skipped": fit.rows_skipped,
            "steps": fit.steps,
            "frames": len(fit.composed.frames),
            "parameters": sum(p.numel() for p in fit.model.parameters()),
            "training": asdict(fit.result),
        },
    )
    shutil.rmtree(folder / CHECKPOINTS, ignore_errors=True)
    return folder
