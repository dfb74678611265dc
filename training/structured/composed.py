"""The compositional decoder: the structured policy's encoder with a tool head and per-node heads.

Instead of one decision over whole-call templates, a call is built as `training.structured.calls`
walks it: the tool (one of those offered, or the closing message), then at every schema node a
mode among those its type allows, and by mode an enum member, a text frame of the field, or
pointers into the observation (a copied value, two operands of a derived number, a frame's holes).
A node's query is the state plus embeddings of its path and list position, so a tool never called
in training still has every argument its schema names. What the tables hold comes from the tool
schemas (tools, paths, enum members) except the text frames, which come from the training rows.

Trained from gold rows with the same loop as the template head (`fit_composed`); loaded like any
structured model folder (`config.json` of kind `loopline-structured-composed`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from training.data.rows import ChatRow
from training.structured.batch import KIND_CODE, collate
from training.structured.calls import (
    FINAL,
    MAX_LIST,
    MODES,
    CallTargets,
    Choice,
    Node,
    build,
    schema_of,
    targets,
)
from training.structured.compose import _Node
from training.structured.features import Encoded, encode
from training.structured.model import ModelConfig, StructuredPolicyModel
from training.structured.observe import Observation, observe
from training.structured.templates import Slot
from training.structured.vocab import Table

KIND = "loopline-structured-composed"
MAX_ROLES = 32


@dataclass
class ComposedVocab:
    """The head's tables: tools, schema paths, enum members per path, text frames per path."""

    tools: list[str]
    paths: list[str]
    members: dict[str, list[str]]
    frames: list[str] = field(default_factory=list)
    frame_paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tool_table, self.path_table = Table(["<unk>", *self.tools]), Table(["<unk>", *self.paths])
        self._frames = {(p, f): i for i, (p, f) in enumerate(zip(self.frame_paths, self.frames, strict=True))}
        self._by_path: dict[str, list[int]] = {}
        for i, path in enumerate(self.frame_paths):
            self._by_path.setdefault(path, []).append(i)

    def frame_id(self, path: str, frame: str) -> int | None:
        return self._frames.get((path, frame))

    def frames_of(self, path: str) -> list[int]:
        return self._by_path.get(path, [])

    def add_frame(self, path: str, frame: str) -> int:
        if (path, frame) not in self._frames:
            self._frames[(path, frame)] = len(self.frames)
            self.frames.append(frame)
            self.frame_paths.append(path)
            self._by_path.setdefault(path, []).append(len(self.frames) - 1)
        return self._frames[(path, frame)]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of_tools(cls, tool_lists: Sequence[Sequence[Mapping[str, Any]]]) -> ComposedVocab:
        tools: dict[str, Mapping[str, Any]] = {}
        for listed in tool_lists:
            for tool in listed:
                tools.setdefault(tool["function"]["name"], tool)
        paths: dict[str, None] = {FINAL: None}
        members: dict[str, list[str]] = {}
        for name in tools:
            for path, node in _schema_paths(schema_of(list(tools.values()), name), name, 0):
                paths.setdefault(path, None)
                if "enum" in node.schema:
                    members[path] = [str(v) for v in node.schema["enum"]]
        return cls(tools=[FINAL, *tools], paths=list(paths), members=members)


def _schema_paths(node: _Node, path: str, depth: int) -> Iterator[tuple[str, _Node]]:
    yield path, node
    if depth > 8:
        return
    for key, raw in node.schema.get("properties", {}).items():
        yield from _schema_paths(_Node(raw, node.defs), f"{path}.{key}", depth + 1)
    if node.schema.get("type") == "array":
        yield from _schema_paths(node.items(), f"{path}[]", depth + 1)


@dataclass(frozen=True)
class ComposedStep:
    """One decision to learn: the observation, the offered tools, the call's decisions."""

    encoded: Encoded
    offered: tuple[str, ...]
    call: CallTargets
    row: int


class ComposedHead(nn.Module):
    """Tool logits from the state; per node, mode / member / frame logits and pointer queries."""

    def __init__(self, d: int, vocab: ComposedVocab, frame_capacity: int) -> None:
        super().__init__()
        self.d = d
        self.tool = nn.Linear(d, len(vocab.tool_table))
        self.path = nn.Embedding(len(vocab.path_table), d)
        self.position = nn.Embedding(MAX_LIST + 1, d)
        self.node_proj = nn.Linear(d, d)
        self.mode = nn.Linear(d, len(MODES))
        self.member_key = nn.Linear(32, d, bias=False)
        self.frame = nn.Linear(d, frame_capacity)
        self.frame_embedding = nn.Embedding(frame_capacity, d)
        self.role = nn.Embedding(MAX_ROLES, d)
        self.pointer_query = nn.Linear(d, d)
        self.pointer_key = nn.Linear(d, d)
        self.pointer_identity = nn.Linear(32, d, bias=False)

    def nodes(self, state: Tensor, paths: Tensor, positions: Tensor) -> Tensor:
        """Hidden [K, d] of K nodes (`state` [K, d] gathered per node)."""
        out: Tensor = torch.nn.functional.gelu(
            self.node_proj(state + self.path(paths) + self.position(positions.clamp(max=MAX_LIST)))
        )
        return out

    def keys(self, items: Tensor, ids: Tensor) -> Tensor:
        out: Tensor = self.pointer_key(items) + self.pointer_identity(ids)
        return out

    def pointer(self, hidden: Tensor, roles: Tensor, frames: Tensor, keys: Tensor) -> Tensor:
        """Scores [P, N] for P pointers (`hidden` [P, d], `keys` [P, N, d] gathered per pointer;
        `frames` -1 outside text)."""
        frame = self.frame_embedding(frames.clamp(min=0)) * (frames >= 0).float()[:, None]
        query = self.pointer_query(
            torch.nn.functional.gelu(hidden + self.role(roles.clamp(max=MAX_ROLES - 1)) + frame)
        )
        scores: Tensor = torch.einsum("pd,pnd->pn", query, keys) / math.sqrt(self.d)
        return scores


class ComposedPolicyModel(nn.Module):
    """The structured encoder and the compositional head."""

    def __init__(self, config: ModelConfig, vocab: ComposedVocab, frame_capacity: int = 1024) -> None:
        super().__init__()
        self.config = config
        self.frame_capacity = frame_capacity
        self.encoder = StructuredPolicyModel(config)
        self.head = ComposedHead(config.d_model, vocab, frame_capacity)


def member_ids(member: str) -> np.ndarray[Any, np.dtype[np.float32]]:
    from training.structured.features import identity

    return identity(f"s:{member}")


def prepare_composed(
    rows: Sequence[ChatRow], vocab: Any, composed: ComposedVocab
) -> tuple[list[ComposedStep], int, int]:
    """Steps of every row whose every call the decoder can build (and rebuild exactly); (steps, used, skipped)."""
    steps: list[ComposedStep] = []
    used = skipped = 0
    for index, row in enumerate(rows):
        row_steps = _row_steps(row, index, vocab, composed)
        if row_steps is None:
            skipped += 1
            continue
        used += 1
        steps += row_steps
    return steps, used, skipped


def _row_steps(row: ChatRow, index: int, vocab: Any, composed: ComposedVocab) -> list[ComposedStep] | None:
    out = []
    for i, message in enumerate(row.messages):
        if message.get("role") != "assistant":
            continue
        obs = observe(row.messages[:i], row.tools)
        call = targets(message, obs, row.tools)
        if call is None or not _rebuilds(call, message, obs, row.tools):
            return None
        for node in call.nodes:
            if MODES[node.mode] == "text":
                composed.add_frame(node.path, node.choice)
        out.append(ComposedStep(encode(obs, vocab), tuple(obs.offered), call, index))
    return out


def _rebuilds(
    call: CallTargets, message: Mapping[str, Any], obs: Observation, tools: Sequence[Mapping[str, Any]]
) -> bool:
    nodes = iter(call.nodes)

    def replay(path: str, position: int, allowed: tuple[int, ...], holes: Sequence[Slot] | None) -> Choice:
        node = next(nodes)
        return Choice(node.mode, node.choice, tuple(s.targets[0] for s in node.slots))

    built = build(call.tool, tools, obs.items, replay)
    if call.tool == FINAL:
        return bool(built == message.get("content"))
    arguments = message["tool_calls"][0]["function"]["arguments"]
    return bool(built == (json.loads(arguments) if isinstance(arguments, str) else arguments))


def _enum_loss(head: ComposedHead, vocab: ComposedVocab, nodes: Sequence[Node], hidden: Tensor) -> Tensor:
    """Cross-entropy of the member chosen at every enum node, over its schema's members."""
    rows = [k for k, n in enumerate(nodes) if MODES[n.mode] == "enum"]
    if not rows:
        return torch.zeros(())
    lists = [vocab.members.get(nodes[k].path, [nodes[k].choice]) for k in rows]
    width = max(len(m) for m in lists)
    ids = np.zeros((len(rows), width, 32), dtype=np.float32)
    mask = torch.zeros((len(rows), width), dtype=torch.bool)
    target = []
    for r, members in enumerate(lists):
        ids[r, : len(members)] = np.stack([member_ids(m) for m in members])
        mask[r, : len(members)] = True
        choice = nodes[rows[r]].choice
        target.append(members.index(choice) if choice in members else 0)
    keys = head.member_key(torch.from_numpy(ids))
    logits = torch.einsum("rmd,rd->rm", keys, hidden[rows]) / math.sqrt(head.d)
    return torch.nn.functional.cross_entropy(
        logits.masked_fill(~mask, -1e9), torch.tensor(target), reduction="sum"
    )


def _frame_loss(
    model: ComposedPolicyModel, vocab: ComposedVocab, nodes: Sequence[Node], hidden: Tensor
) -> Tensor:
    """Cross-entropy of the frame chosen at every text node, over the frames of its path."""
    rows = [k for k, n in enumerate(nodes) if MODES[n.mode] == "text"]
    if not rows:
        return torch.zeros(())
    mask = torch.zeros((len(rows), model.frame_capacity), dtype=torch.bool)
    target = []
    for r, k in enumerate(rows):
        mask[r, vocab.frames_of(nodes[k].path)] = True
        target.append(vocab.frame_id(nodes[k].path, nodes[k].choice) or 0)
    logits = model.head.frame(hidden[rows]).masked_fill(~mask, -1e9)
    return torch.nn.functional.cross_entropy(logits, torch.tensor(target), reduction="sum")


def tool_weights(steps: Sequence[ComposedStep], vocab: ComposedVocab) -> Tensor:
    """Class weights of the tool loss: the inverse square root of each tool's share of the steps
    (clipped to [0.2, 5]), as the template head weighs templates: a case's one decisive write
    counts against the reads every case starts with."""
    n = len(vocab.tool_table)
    counts = torch.bincount(
        torch.tensor([vocab.tool_table.id(s.call.tool) for s in steps]), minlength=n
    ).float()
    weights = (counts.clamp_min(1.0) / counts.sum() * n).pow(-0.5).clamp(0.2, 5.0)
    return weights / weights[counts > 0].mean()


def composed_loss(
    model: ComposedPolicyModel,
    steps: Sequence[ComposedStep],
    vocab: ComposedVocab,
    weights: Tensor | None = None,
) -> tuple[Tensor, dict[str, float]]:
    """Cross-entropy of the tool, of every node's mode, member and frame, plus the pointer loss of
    every pointer (minus the log of the probability mass on the items holding the value), per step."""
    head = model.head
    batch = collate([s.encoded for s in steps])
    state, items = model.encoder.encode(batch)
    tool_logits = head.tool(state)
    offered = torch.zeros_like(tool_logits, dtype=torch.bool)
    for b, step in enumerate(steps):
        offered[b, [vocab.tool_table.id(t) for t in (FINAL, *step.offered)]] = True
    tool_target = torch.tensor([vocab.tool_table.id(s.call.tool) for s in steps])
    tool_loss = torch.nn.functional.cross_entropy(
        tool_logits.masked_fill(~offered, -1e9), tool_target, weight=weights, reduction="sum"
    )
    node_step, paths, positions, modes, allowed = [], [], [], [], []
    for b, step in enumerate(steps):
        for node in step.call.nodes:
            node_step.append(b)
            paths.append(vocab.path_table.id(node.path))
            positions.append(node.position)
            modes.append(node.mode)
            mask = [False] * len(MODES)
            for m in node.allowed:
                mask[m] = True
            allowed.append(mask)
    index = torch.tensor(node_step)
    hidden = head.nodes(state[index], torch.tensor(paths), torch.tensor(positions))
    mode_logits = head.mode(hidden).masked_fill(~torch.tensor(allowed), -1e9)
    mode_loss = torch.nn.functional.cross_entropy(mode_logits, torch.tensor(modes), reduction="sum")
    flat = [node for step in steps for node in step.call.nodes]
    choice_loss = _enum_loss(head, vocab, flat, hidden) + _frame_loss(model, vocab, flat, hidden)
    p_rows, p_roles, p_frames, p_kinds, p_hits = [], [], [], [], []
    for k, node in enumerate(flat):
        frame = vocab.frame_id(node.path, node.choice) if MODES[node.mode] == "text" else None
        for r, slot in enumerate(node.slots):
            p_rows.append(k)
            p_roles.append(r)
            p_frames.append(-1 if frame is None else frame)
            p_kinds.append(KIND_CODE[slot.kind])
            p_hits.append(slot.targets)
    pointer_loss = torch.zeros(())
    if p_rows:
        rows = torch.tensor(p_rows)
        keys = head.keys(items, batch["ids"])[index[rows]]
        scores = head.pointer(hidden[rows], torch.tensor(p_roles), torch.tensor(p_frames), keys)
        fits = batch["item_mask"][index[rows]] & (
            batch["kinds"][index[rows]] == torch.tensor(p_kinds)[:, None]
        )
        positive = torch.zeros_like(fits)
        positive[[p for p, hits in enumerate(p_hits) for _ in hits], [t for hits in p_hits for t in hits]] = (
            True
        )
        scores = scores.masked_fill(~fits, -1e9)
        pointer_loss = (
            torch.logsumexp(scores, -1) - torch.logsumexp(scores.masked_fill(~positive, -1e9), -1)
        ).sum()
    n = len(steps)
    total = (tool_loss + mode_loss + choice_loss + pointer_loss) / n
    with torch.no_grad():
        stats = {
            "tool": float(tool_loss) / n,
            "mode": float(mode_loss) / n,
            "choice": float(choice_loss) / n,
            "pointer": float(pointer_loss) / n,
            "accuracy": float(
                (tool_logits.masked_fill(~offered, -1e9).argmax(-1) == tool_target).float().mean()
            ),
        }
    return total, stats


def save_composed(
    folder: Path, model: ComposedPolicyModel, vocab: Any, composed: ComposedVocab, manifest: dict[str, Any]
) -> None:
    """Write the model folder: `config.json`, `vocab.json`, `composed.json`, `model.safetensors`, `manifest.json`."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    config = {"kind": KIND, **model.config.to_json(), "frame_capacity": model.frame_capacity}
    (folder / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    vocab.save(folder / "vocab.json")
    (folder / "composed.json").write_text(json.dumps(composed.to_json(), indent=1, ensure_ascii=False) + "\n")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "model.safetensors"))
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str) + "\n")


def is_composed(folder: Path) -> bool:
    config = folder / "config.json"
    return config.is_file() and json.loads(config.read_text()).get("kind") == KIND


def load_composed(folder: Path) -> tuple[ComposedPolicyModel, Any, ComposedVocab, dict[str, Any]]:
    from safetensors.torch import load_file

    from training.structured.vocab import Vocab

    config = json.loads((folder / "config.json").read_text())
    config.pop("kind")
    capacity = int(config.pop("frame_capacity"))
    config["scalar_edges"] = tuple(tuple(edges) for edges in config["scalar_edges"])
    composed = ComposedVocab(**json.loads((folder / "composed.json").read_text()))
    model = ComposedPolicyModel(ModelConfig(**config), composed, capacity)
    model.load_state_dict(load_file(str(folder / "model.safetensors")))
    manifest = json.loads((folder / "manifest.json").read_text())
    return model.eval(), Vocab.load(folder / "vocab.json"), composed, manifest
