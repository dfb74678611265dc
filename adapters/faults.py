"""Fault injection for the sandbox live systems of every domain: production exceptions on demand.

Which request gets which fault is a function of the seed, the endpoint (tool name), and how many
requests that endpoint has seen, so the same request sequence meets the same faults.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from schemas.base import Contract


class FaultRule(Contract):
    """A fault for one endpoint (tool name) or all (`*`), at a rate, optionally only the first N calls."""

    endpoint: str = "*"
    """Tool name whose endpoint misbehaves (e.g. `get_remittance`, `get_package`), or `*` for every endpoint."""
    kind: Literal["latency", "timeout", "http_error"]
    """latency: answer late; timeout: stall past any client timeout; http_error: answer `status`."""
    rate: float = Field(default=1.0, ge=0, le=1)
    """Share of matching requests that get the fault (decided by the seed, so reproducible)."""
    status: int = Field(default=503, ge=400, le=599)
    """HTTP status for `http_error` (4xx validation errors or 5xx server errors)."""
    delay_ms: float = Field(default=0.0, ge=0, le=600_000)
    """Added latency for `latency`; stall length for `timeout` (0 = the config's `timeout_s`)."""
    first_n: int | None = Field(default=None, ge=0)
    """Only the first N requests to the endpoint (counted from the last fault change)."""
    apply_write: bool = True
    """For a timed-out write: whether the change takes effect before the stall (the outcome the
    client cannot know)."""


class FaultConfig(Contract):
    """Fault injection, deterministic by seed: per request, a generator seeded from (seed, endpoint,
    request number) decides, so the same request sequence meets the same faults."""

    seed: int = 0
    """Seed of the fault decisions."""
    latency_ms: float = Field(default=0.0, ge=0, le=600_000)
    """Latency added to every response."""
    timeout_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests that stall (a timeout for the client)."""
    error_5xx_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests answered 503."""
    error_4xx_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests answered 422 (a validation error from the live system)."""
    timeout_s: float = Field(default=30.0, ge=0, le=600)
    """How long a stall lasts."""
    rules: tuple[FaultRule, ...] = ()
    """Per-endpoint faults, checked before the global rates; the first match wins."""


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
