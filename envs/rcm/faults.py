"""Scripted live-system failures (timeouts, 5xx) and payer bulletins on top of the RCM sim, for
edge-case tasks.

Production sees tool errors the pure sim never raises. A task can carry a fault plan under the
world key `sim_faults` (outside the adapter's `World`, which forbids extra fields): "the 2nd call
of `post_write_off` times out after the write took effect". Faults are keyed by call count, never
drawn at random, so a task replays identically for any agent that makes the same calls. A payer's
pending bulletin is published the same way: after a number of calls (the sim has no clock), so it
can land while a queue is being worked.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from adapters.backend import ToolFailure
from adapters.faults import FaultConfig, FaultRule
from adapters.rcm.bulletins import publish_bulletin
from adapters.rcm.sim import SimBackend
from adapters.rcm.world import World
from schemas.base import Contract
from schemas.tools import ToolError, ToolOutcome

FAULTS_KEY = "sim_faults"
"""World key holding the fault plan and how many calls of each tool were made."""


class Fault(Contract):
    """One scripted failure."""

    tool: str
    """Tool whose call fails."""
    occurrence: int = 1
    """Which call of that tool fails (1 = the first)."""
    kind: Literal["timeout", "http_503"]
    """A timeout (no answer) or a 503 from the live system."""
    applied: bool = False
    """For a timed-out write: whether the write took effect before the answer was lost."""


class Publication(Contract):
    """A pending payer bulletin the payer publishes while the task is worked."""

    bulletin_id: str
    """The bulletin (pending in the world until then)."""
    after_calls: int = Field(ge=0)
    """Tool calls answered before it is out: the next call already sees it."""


class FaultyBackend:
    """`SimBackend` plus a fault plan and bulletin publications; snapshots carry both and the call
    counts."""

    def __init__(
        self,
        world: World,
        plan: list[Fault],
        calls: dict[str, int] | None = None,
        publications: list[Publication] | None = None,
    ) -> None:
        self.inner = SimBackend(world)
        self.plan = plan
        self.calls: dict[str, int] = dict(calls or {})
        self.publications = list(publications or [])

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> FaultyBackend:
        """From a world document that may hold `sim_faults`."""
        body = dict(doc)
        faults = body.pop(FAULTS_KEY, None) or {}
        plan = [Fault.model_validate(f) for f in faults.get("plan", [])]
        publications = [Publication.model_validate(p) for p in faults.get("bulletins", [])]
        return cls(World.from_snapshot(body), plan, faults.get("calls"), publications)

    def _publish_due(self) -> None:
        """Publish every bulletin whose call count has come (publishing twice changes nothing)."""
        made = sum(self.calls.values())
        for due in self.publications:
            if made >= due.after_calls:
                self.inner.world = publish_bulletin(self.inner.world, due.bulletin_id)

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        self._publish_due()
        self.calls[tool] = self.calls.get(tool, 0) + 1
        fault = next((f for f in self.plan if f.tool == tool and f.occurrence == self.calls[tool]), None)
        if fault is None:
            return self.inner.invoke(tool, args)
        if fault.kind == "http_503":
            error = ToolError(
                kind="http",
                status_code=503,
                retryable=True,
                message="clearinghouse unavailable (503); retry later",
            )
            raise ToolFailure(error)
        if fault.applied:
            self.inner.invoke(tool, args)  # the write happened; only the answer is lost
        read = tool.startswith(("get_", "check_", "find_", "read_"))
        error = ToolError(
            kind="timeout",
            retryable=read,
            message="no answer from the payer gateway within 30 s"
            + ("" if read else "; the request may have been processed: check before sending it again"),
        )
        raise ToolFailure(error, outcome=ToolOutcome.FAILED if read else ToolOutcome.UNKNOWN)

    def snapshot(self) -> dict[str, Any]:
        doc = self.inner.snapshot()
        if self.plan or self.publications:
            doc[FAULTS_KEY] = {
                "plan": [f.model_dump() for f in self.plan],
                "calls": dict(sorted(self.calls.items())),
            }
            if self.publications:
                doc[FAULTS_KEY]["bulletins"] = [p.model_dump() for p in self.publications]
        return doc

    def restore(self, state: dict[str, Any]) -> None:
        other = FaultyBackend.from_doc(state)
        self.inner, self.plan, self.calls = other.inner, other.plan, other.calls
        self.publications = other.publications


class NotInTheSandbox(ValueError):
    """A task's fault plan the sandbox's fault injection cannot reproduce."""


def split_faults(doc: dict[str, Any], *, stall_s: float) -> tuple[dict[str, Any], FaultConfig]:
    """A task's world document as the sandbox takes it (`World`, without `sim_faults`) and the
    sandbox faults that reproduce its plan: each fault on the first call of its tool (a 503, or a
    stall of `stall_s`, past the client's timeout, with the write applied or not). Raises
    `NotInTheSandbox` for what the sandbox cannot do: a fault on a later call, a bulletin published
    mid-episode."""
    body = dict(doc)
    faults = body.pop(FAULTS_KEY, None) or {}
    plan = [Fault.model_validate(f) for f in faults.get("plan", [])]
    if faults.get("bulletins"):
        raise NotInTheSandbox("a payer bulletin published while the case is worked")
    if any(f.occurrence != 1 for f in plan):
        raise NotInTheSandbox("a fault on a later call of a tool than the first")
    rules = tuple(
        FaultRule(endpoint=f.tool, kind="http_error", status=503, first_n=1)
        if f.kind == "http_503"
        else FaultRule(endpoint=f.tool, kind="timeout", first_n=1, apply_write=f.applied)
        for f in plan
    )
    return body, FaultConfig(timeout_s=stall_s, rules=rules)
