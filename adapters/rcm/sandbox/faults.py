"""Deterministic fault injection: which request gets which fault is a function of the seed, the
endpoint, and how many requests that endpoint has seen."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from adapters.rcm.sandbox.config import FaultConfig


@dataclass(frozen=True)
class Fault:
    """What to do to one request."""

    kind: Literal["latency", "timeout", "http_error"]
    delay_s: float = 0.0
    status: int = 0
    apply_write: bool = True


class FaultInjector:
    """Decides the fault for each request; `configure` swaps the config and restarts the counts."""

    def __init__(self, config: FaultConfig) -> None:
        self.config = config
        self._counts: dict[str, int] = {}

    def configure(self, config: FaultConfig) -> None:
        self.config = config
        self._counts = {}

    def decide(self, endpoint: str) -> Fault | None:
        n = self._counts.get(endpoint, 0)
        self._counts[endpoint] = n + 1
        cfg = self.config
        # String seeds hash with SHA-512: stable across runs and processes, unlike hash().
        rng = random.Random(f"{cfg.seed}:{endpoint}:{n}")
        for rule in cfg.rules:
            if rule.endpoint not in ("*", endpoint) or (rule.first_n is not None and n >= rule.first_n):
                continue
            if rng.random() < rule.rate:
                delay = rule.delay_ms / 1000 if rule.delay_ms or rule.kind == "latency" else cfg.timeout_s
                return Fault(rule.kind, delay_s=delay, status=rule.status, apply_write=rule.apply_write)
        draw = rng.random()
        if draw < cfg.timeout_rate:
            return Fault("timeout", delay_s=cfg.timeout_s)
        if draw < cfg.timeout_rate + cfg.error_5xx_rate:
            return Fault("http_error", status=503)
        if draw < cfg.timeout_rate + cfg.error_5xx_rate + cfg.error_4xx_rate:
            return Fault("http_error", status=422)
        if cfg.latency_ms:
            return Fault("latency", delay_s=cfg.latency_ms / 1000)
        return None
