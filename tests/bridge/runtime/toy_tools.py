"""A tiny denial-work toolset for runtime tests: one read, one write, one escalation, one terminal tool.

The backend is in-memory and snapshot-able; a few magic claim ids make it fail the way a live
system does, so the runtime's tri-state handling can be tested: `C-503` answers HTTP 503 (failed,
retryable), `C-TIMEOUT` times out on a write (unknown: the write may have happened).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field

from adapters import Toolbox, ToolFailure, ToolSpec
from engine import EscalateArgs as EscalateArgsBuiltin
from schemas import SideEffect, ToolError, ToolOutcome
from schemas.phi import phi_field


class LookupArgs(BaseModel):
    """Arguments of `lookup_claim`."""

    claim_id: str = Field(description="The claim to look up.")


class ClaimFacts(BaseModel):
    """A claim as the payer sees it."""

    claim_id: str
    carc: str
    amount: Decimal
    status: str
    patient_name: str = phi_field(description="Patient's name.")


class DenialPayload(BaseModel):
    """The payload of a toy denial work item."""

    claim_id: str
    carc: str
    group: str
    patient_name: str = phi_field(description="Patient's name.")


class WriteOffArgs(BaseModel):
    """Arguments of `write_off`."""

    claim_id: str = Field(description="The claim to write off.")
    amount: Decimal = Field(gt=0, description="Amount to write off.")
    reason: str = Field(description="Why.")


class Receipt(BaseModel):
    """Confirmation of a write."""

    claim_id: str
    status: str


class AppealArgs(BaseModel):
    """Arguments of `submit_appeal`."""

    claim_id: str = Field(description="The claim to appeal.")
    letter: str = Field(description="The appeal letter.")


class EscalateArgs(BaseModel):
    """Arguments of `escalate_to_human`."""

    reason: str = Field(description="Why a human is needed.")
    recommendation: str | None = Field(default=None, description="What you recommend.")
    queue: str | None = Field(default=None, description="Which human queue.")


TOY_TOOLS: list[ToolSpec[Any, Any]] = [
    ToolSpec("lookup_claim", "Look up a claim.", LookupArgs, ClaimFacts, SideEffect.READ),
    ToolSpec("write_off", "Post a contractual write-off.", WriteOffArgs, Receipt, SideEffect.WRITE),
    ToolSpec("submit_appeal", "Submit an appeal.", AppealArgs, Receipt, SideEffect.IRREVERSIBLE),
    ToolSpec("escalate_to_human", "Hand the claim to a human.", EscalateArgs, Receipt, SideEffect.WRITE),
]


TOY_ARGS_MODELS: dict[str, type[BaseModel]] = {
    **{spec.name: spec.args_model for spec in TOY_TOOLS},
    "escalate": EscalateArgsBuiltin,  # the runtime's built-in escalate tool, offered in some tests
}


class ToyBackend:
    """In-memory claims; records every invocation."""

    def __init__(self) -> None:
        self.claims: dict[str, dict[str, Any]] = {
            "C-1": {"carc": "45", "amount": "120.00", "status": "denied"},
            "C-503": {"carc": "45", "amount": "80.00", "status": "denied"},
            "C-TIMEOUT": {"carc": "45", "amount": "60.00", "status": "denied"},
        }
        self.invocations: list[tuple[str, dict[str, Any]]] = []

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        self.invocations.append((tool, args.model_dump(mode="json")))
        claim_id: str = getattr(args, "claim_id", "")
        if claim_id == "C-503":
            raise ToolFailure(
                ToolError(kind="http", message="payer API answered 503", status_code=503, retryable=True)
            )
        if tool == "lookup_claim":
            claim = self._claim(claim_id)
            return ClaimFacts(
                claim_id=claim_id,
                carc=claim["carc"],
                amount=claim["amount"],
                status=claim["status"],
                patient_name="Ada Lovelace",
            )
        if tool == "escalate_to_human":
            return Receipt(claim_id="C-1", status="escalated")
        claim = self._claim(claim_id)
        if claim_id == "C-TIMEOUT":
            claim["status"] = "maybe_written_off"
            raise ToolFailure(
                ToolError(kind="timeout", message="no answer within 10 s", retryable=False),
                outcome=ToolOutcome.UNKNOWN,
            )
        claim["status"] = "written_off" if tool == "write_off" else "appealed"
        return Receipt(claim_id=claim_id, status=claim["status"])

    def _claim(self, claim_id: str) -> dict[str, Any]:
        if claim_id not in self.claims:
            raise ToolFailure(ToolError(kind="domain", message=f"no claim {claim_id}"))
        return self.claims[claim_id]

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({"claims": self.claims})

    def restore(self, state: dict[str, Any]) -> None:
        self.claims = copy.deepcopy(state["claims"])


def toy_toolbox(backend: ToyBackend | None = None) -> Toolbox:
    return Toolbox(TOY_TOOLS, backend or ToyBackend())
