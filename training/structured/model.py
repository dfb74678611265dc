"""The structured policy network: a small transformer over the conversation's items, a decision head
over action templates, and pointer heads that pick which item fills each slot.

Every projection is an `nn.Linear` with a stable name (`q_proj`, `k_proj`, `v_proj`, `o_proj`,
`up_proj`, `down_proj`, `decision`, `pointer_query`, `pointer_key`), and the template and slot
tables are `nn.Embedding`s, so peft's LoRA can target them by name like any transformer's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor, nn

from training.structured.features import (
    CATEGORICAL,
    DAY_BUCKETS,
    ID_DIM,
    KINDS,
    MAX_POS,
    MAX_RECENCY,
    NUMERIC,
    OUTCOMES,
    SCALARS,
)


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the network; vocabulary sizes come from the `Vocab` it was built with."""

    paths: int
    values: int
    qualifiers: int
    tools: int
    templates: int
    """Rows of the decision head (the vocabulary's template capacity)."""
    d_model: int = 64
    layers: int = 3
    heads: int = 4
    ff: int = 128
    max_slots: int = 24
    scalar_edges: tuple[tuple[float, ...], ...] = ((0.0, 1.0), (0.0, 1.0), (0.0, 1.0))
    """Bin edges of each scalar channel (`features.scalar_bins`)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Block(nn.Module):
    """Pre-norm self-attention and feed-forward."""

    def __init__(self, d: int, heads: int, ff: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d) for _ in range(4))
        self.up_proj, self.down_proj = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        b, n, d = x.shape
        h = self.norm1(x)

        def split(t: Tensor) -> Tensor:
            return t.view(b, n, self.heads, d // self.heads).transpose(1, 2)

        q, k, v = split(self.q_proj(h)), split(self.k_proj(h)), split(self.v_proj(h))
        attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
        x = x + self.o_proj(attn.transpose(1, 2).reshape(b, n, d))
        out: Tensor = x + self.down_proj(torch.nn.functional.gelu(self.up_proj(self.norm2(x))))
        return out


class PiecewiseLinear(nn.Module):
    """Piecewise-linear encoding of raw numbers over fixed bin edges, then a linear map."""

    def __init__(self, edges: tuple[tuple[float, ...], ...], d: int) -> None:
        super().__init__()
        self.channels = len(edges)
        width = max(len(e) for e in edges)
        low = torch.full((len(edges), width - 1), 0.0)
        span = torch.full((len(edges), width - 1), 1e9)
        for c, e in enumerate(edges):
            t = torch.tensor(e, dtype=torch.float32)
            low[c, : len(e) - 1] = t[:-1]
            span[c, : len(e) - 1] = (t[1:] - t[:-1]).clamp_min(1e-6)
        self.register_buffer("low", low)
        self.register_buffer("span", span)
        self.scalar_proj = nn.Linear(len(edges) * (width - 1), d)

    def forward(self, x: Tensor) -> Tensor:
        low, span = self.get_buffer("low"), self.get_buffer("span")
        parts = ((x[..., :, None] - low) / span).clamp(0.0, 1.0)
        out: Tensor = self.scalar_proj(parts.flatten(-2))
        return out


class StructuredPolicyModel(nn.Module):
    """Items + turns → decision logits over templates, and item states for the pointers."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        sizes = {
            "path": config.paths,
            "value": config.values,
            "qualifier": config.qualifiers,
            "tool": config.tools,
            "kind": len(KINDS),
            "recency": MAX_RECENCY + 1,
            "outcome": len(OUTCOMES),
            "pos": MAX_POS + 1,
            "last": 3,
            "word": MAX_POS + 1,
            "today": DAY_BUCKETS,
            "service": DAY_BUCKETS,
        }
        self.item_tables = nn.ModuleList(nn.Embedding(sizes[name], d) for name in CATEGORICAL)
        self.numeric = nn.Linear(NUMERIC, d)
        self.scalars = PiecewiseLinear(config.scalar_edges, d)
        self.identity = nn.Linear(ID_DIM, d, bias=False)
        self.turn_tool = nn.Embedding(config.tools, d)
        self.turn_outcome = nn.Embedding(len(OUTCOMES), d)
        self.turn_recency = nn.Embedding(MAX_RECENCY + 1, d)
        self.turn_error = nn.Embedding(16, d)
        self.segment = nn.Embedding(3, d)
        self.blocks = nn.ModuleList(Block(d, config.heads, config.ff) for _ in range(config.layers))
        self.norm = nn.LayerNorm(d)
        self.decision = nn.Linear(d, config.templates)
        self.template_embedding = nn.Embedding(config.templates, d)
        self.slot_embedding = nn.Embedding(config.max_slots, d)
        self.pointer_query = nn.Linear(d, d)
        self.pointer_key = nn.Linear(d, d)
        self.pointer_identity = nn.Linear(ID_DIM, d, bias=False)

    def encode(self, batch: dict[str, Tensor]) -> tuple[Tensor, Tensor]:
        """(state [B, d], item states [B, N, d]) for a collated batch."""
        cats, turns = batch["cats"], batch["turns"]
        items = sum(table(cats[..., i]) for i, table in enumerate(self.item_tables))
        nums = batch["nums"]
        items = (
            items
            + self.numeric(nums[..., :NUMERIC])
            + self.scalars(nums[..., NUMERIC : NUMERIC + len(SCALARS)])
        )
        items = items + self.identity(batch["ids"]) + self.segment.weight[2]
        turn_x = (
            self.turn_tool(turns[..., 0])
            + self.turn_outcome(turns[..., 1])
            + self.turn_recency(turns[..., 2])
            + self.turn_error(turns[..., 3])
            + self.segment.weight[1]
        )
        b = cats.shape[0]
        cls = self.segment.weight[0].expand(b, 1, -1)
        x = torch.cat([cls, turn_x, items], dim=1)
        mask = torch.cat([torch.ones(b, 1, dtype=torch.bool), batch["turn_mask"], batch["item_mask"]], dim=1)
        for block in self.blocks:
            x = block(x, mask)
        x = self.norm(x)
        return x[:, 0], x[:, 1 + turns.shape[1] :]

    def pointer_keys(self, items: Tensor, ids: Tensor) -> Tensor:
        """Pointer keys [B, N, d] of every item (computed once per batch)."""
        keys: Tensor = self.pointer_key(items) + self.pointer_identity(ids)
        return keys

    def pointer_logits(self, state: Tensor, keys: Tensor, templates: Tensor, slots: Tensor) -> Tensor:
        """Scores [S, N] of every item for each of S slots (`state` [S, d] and `keys` [S, N, d]
        gathered per slot)."""
        query = self.pointer_query(
            torch.nn.functional.gelu(state + self.template_embedding(templates) + self.slot_embedding(slots))
        )
        scores: Tensor = torch.einsum("sd,snd->sn", query, keys) / math.sqrt(self.config.d_model)
        return scores
