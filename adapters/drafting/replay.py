"""Replay an episode's own calls against a reconstructed world and measure how faithful it is. Pure.

Domain-neutral: the domain gives its tool specs and a simulated backend over the rebuilt world.

A call is reproduced when the sim answers it exactly as the live system did: the same result
(field by field), or the same failure (kind, HTTP status, domain code). Failures of the live system
itself (a 5xx, a timeout, a lost connection) are not business logic the sim can derive: they are
carried as a fault plan, `LiveFault`s keyed by the tool's call count, and injected at the same call
on replay, so a task built from the draft meets the same production exception. A write whose
outcome was unknown may or may not have landed; replay tries both and keeps the more faithful.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from adapters.backend import ToolBackend, ToolFailure
from adapters.drafting.recording import RecordedCall, RecordedEpisode
from adapters.spec import ToolSpec
from adapters.toolbox import Toolbox
from schemas.base import Contract
from schemas.tools import ToolError, ToolOutcome, ToolResult

LIVE_FAULT_KINDS = frozenset({"http", "timeout", "transport", "backend"})
MAX_UNKNOWN_WRITES = 4  # 2**4 replays at most when guessing which unknown writes landed
MAX_DIFFS = 5
BackendFactory = Callable[[], ToolBackend]
"""A fresh simulated backend over the rebuilt world (one per replay)."""


class LiveFault(Contract):
    """A failure of the live system at one call, replayed as it happened."""

    tool: str
    """Tool whose call failed."""
    occurrence: int
    """Which call of that tool (1 = the first)."""
    kind: Literal["http", "timeout", "transport", "backend"]
    """What failed."""
    status_code: int | None = None
    """HTTP status, for `http`."""
    outcome: ToolOutcome = ToolOutcome.FAILED
    """failed, or unknown for a write that may have landed."""
    retryable: bool = False
    """Whether the live system said a retry may succeed."""
    applied: bool = False
    """For an unknown write: whether it took effect (decided by replay)."""


class Mismatch(Contract):
    """A call the sim did not answer as the live system did."""

    index: int
    """Position of the call in the episode (0-based)."""
    call_id: str
    """The call's id."""
    tool: str
    """The tool."""
    what: str
    """What differs, recorded against replayed."""


class Fidelity(Contract):
    """How much of the episode the reconstructed sim reproduces."""

    calls: int
    """Calls replayed."""
    reproduced: int
    """Calls answered exactly as recorded."""
    share: float
    """`reproduced / calls` (1.0 for an episode without calls)."""
    injected_faults: int = 0
    """Recorded live faults replayed from the fault plan (counted as reproduced)."""
    mismatches: tuple[Mismatch, ...] = ()
    """Every call not reproduced, with what differs."""


class _FaultyReplay:
    """The sim, with the live faults injected at their calls."""

    def __init__(self, inner: ToolBackend, faults: list[LiveFault]) -> None:
        self.inner = inner
        self.faults = faults
        self.counts: dict[str, int] = {}

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        self.counts[tool] = self.counts.get(tool, 0) + 1
        fault = next((f for f in self.faults if (f.tool, f.occurrence) == (tool, self.counts[tool])), None)
        if fault is None:
            return self.inner.invoke(tool, args)
        if fault.applied:
            self.inner.invoke(tool, args)
        error = ToolError(
            kind=fault.kind,
            message="replayed live fault",
            status_code=fault.status_code,
            retryable=fault.retryable,
        )
        raise ToolFailure(error, outcome=fault.outcome)


def live_faults(episode: RecordedEpisode) -> list[LiveFault]:
    """The episode's live-system failures, as a fault plan."""
    counts: dict[str, int] = {}
    faults = []
    for recorded in episode.calls:
        counts[recorded.call.name] = counts.get(recorded.call.name, 0) + 1
        error = recorded.error
        if recorded.outcome is not ToolOutcome.OK and error is not None and error.kind in LIVE_FAULT_KINDS:
            faults.append(
                LiveFault(
                    tool=recorded.call.name,
                    occurrence=counts[recorded.call.name],
                    kind=error.kind,
                    status_code=error.status_code,
                    outcome=recorded.outcome,
                    retryable=error.retryable,
                )
            )
    return faults


def replay(
    make_backend: BackendFactory,
    specs: Sequence[ToolSpec[Any, Any]],
    episode: RecordedEpisode,
    faults: list[LiveFault],
) -> tuple[Fidelity, list[LiveFault]]:
    """Replay every call; with unknown writes, the landed/lost guess that reproduces the most."""
    unknown = [i for i, f in enumerate(faults) if f.outcome is ToolOutcome.UNKNOWN][:MAX_UNKNOWN_WRITES]
    best: tuple[Fidelity, list[LiveFault]] | None = None
    for guess in itertools.product((False, True), repeat=len(unknown)):
        plan = list(faults)
        for index, applied in zip(unknown, guess, strict=True):
            plan[index] = plan[index].model_copy(update={"applied": applied})
        fidelity = _replay_once(Toolbox(specs, _FaultyReplay(make_backend(), plan)), episode)
        if best is None or fidelity.reproduced > best[0].reproduced:
            best = (fidelity, plan)
    assert best is not None
    return best


def _replay_once(toolbox: Toolbox, episode: RecordedEpisode) -> Fidelity:
    mismatches: list[Mismatch] = []
    injected = 0
    for index, recorded in enumerate(episode.calls):
        replayed = toolbox.call(recorded.call)
        what = _difference(recorded, replayed)
        if what is None:
            injected += int(recorded.error is not None and recorded.error.kind in LIVE_FAULT_KINDS)
            continue
        mismatches.append(
            Mismatch(index=index, call_id=recorded.call.call_id, tool=recorded.call.name, what=what)
        )
    calls = len(episode.calls)
    reproduced = calls - len(mismatches)
    return Fidelity(
        calls=calls,
        reproduced=reproduced,
        share=reproduced / calls if calls else 1.0,
        injected_faults=injected,
        mismatches=tuple(mismatches),
    )


def _difference(recorded: RecordedCall, replayed: ToolResult) -> str | None:
    if recorded.outcome is not replayed.outcome:
        said = f"{replayed.error.kind}: {replayed.error.message}" if replayed.error else "a result"
        return f"outcome: recorded {recorded.outcome.value}, replayed {replayed.outcome.value} ({said})"
    if recorded.outcome is ToolOutcome.OK:
        diffs = list(_diff(recorded.result, replayed.result, ""))
        if not diffs:
            return None
        shown = "; ".join(diffs[:MAX_DIFFS]) + (
            f"; and {len(diffs) - MAX_DIFFS} more" if len(diffs) > MAX_DIFFS else ""
        )
        return f"result differs: {shown}"
    want, got = recorded.error, replayed.error
    assert want is not None and got is not None
    key_want = (want.kind, want.status_code, want.details.get("code"))
    key_got = (got.kind, got.status_code, got.details.get("code"))
    if key_want != key_got:
        return f"failure differs: recorded {_key(key_want)}, replayed {_key(key_got)}"
    return None


def _key(key: tuple[Any, ...]) -> str:
    return "/".join(str(k) for k in key if k is not None)


def _diff(recorded: Any, replayed: Any, path: str) -> list[str]:
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        out: list[str] = []
        for key in sorted(set(recorded) | set(replayed)):
            out += _diff(recorded.get(key), replayed.get(key), f"{path}.{key}" if path else str(key))
        return out
    if isinstance(recorded, list) and isinstance(replayed, list):
        if len(recorded) != len(replayed):
            return [f"{path or 'result'}: {len(recorded)} items recorded, {len(replayed)} replayed"]
        out = []
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            out += _diff(a, b, f"{path}.{i}")
        return out
    if (
        isinstance(recorded, int | float)
        and isinstance(replayed, int | float)
        and not isinstance(recorded, bool)
    ):
        return (
            [] if abs(float(recorded) - float(replayed)) < 1e-9 else [f"{path}: {recorded!r} → {replayed!r}"]
        )
    return [] if recorded == replayed else [f"{path}: {recorded!r} → {replayed!r}"]
