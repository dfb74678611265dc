"""The specialist's desk: how the reference solver talks to the tools.

A script is a generator that yields tool calls and receives their results, so the solver reads
like a specialist's checklist and can be replayed from a trajectory (see `solver.reference_plan`).
The desk gives calls stable ids, retries what is safe to retry, checks before repeating a write
whose outcome is unknown, and applies the office rules every playbook shares (the write-off
approval limit, how to escalate).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import Any

from adapters.rcm.guards import UNPROCESSABLE
from envs.rcm.evidence_note import Read, evidence_note
from envs.rcm.grounding_data import TEXT_FIELDS
from envs.script import Script, replay_script
from schemas.tasks import WorkItem
from schemas.tools import ToolCall, ToolOutcome

__all__ = ["CONTRACTUAL", "DONE", "PATIENT_SHARE", "Desk", "Facts", "Script", "facts_from", "next_action"]

ATTEMPTS = 3
NOTE_LIMIT, REASON_LIMIT = 1000, 4000
"""Longest note and longest letter or hand-off reason the tools take."""
CONTRACTUAL = frozenset({"45", "131", "253", "23"})
"""Adjustments that are not denials: the contract's (fee schedule, negotiated discount,
sequestration) and a prior payer's adjudication."""
PATIENT_SHARE = {"1": "deductible", "2": "coinsurance", "3": "copay"}


@dataclass(frozen=True)
class Adj:
    """One adjustment of the remittance, with where it sits."""

    line: int | None
    modifiers: tuple[str, ...]
    group: str
    carc: str
    amount: float
    known: bool


@dataclass
class Facts:
    """What the specialist knows about the claim being worked."""

    claim: dict[str, Any]
    balance: float
    remit: dict[str, Any]
    adjustments: list[Adj] = field(default_factory=list)
    written_off: float = 0.0
    """Discretionary write-offs posted so far (what counts against the approval limit)."""

    @property
    def claim_id(self) -> str:
        return str(self.claim["claim_id"])

    @property
    def dos(self) -> date:
        return min(date.fromisoformat(line["service_date"]) for line in self.claim["lines"])

    @property
    def denials(self) -> list[Adj]:
        """Adjustments that are denials (not contractual, not the patient's share)."""
        return [
            a
            for a in self.adjustments
            if a.carc not in CONTRACTUAL and not (a.group == "PR" and a.carc in PATIENT_SHARE)
        ]

    @property
    def denied_amount(self) -> float:
        return round(sum(a.amount for a in self.denials), 2)

    def remarks(self) -> set[str]:
        return {r["code"] for line in self.remit["lines"] for r in line["remarks"]}

    def codes(self) -> str:
        """The denial's codes as a note cites them: `CO-16 (MA130, N382)`; a claim with no denial
        names the adjustments the payer made (`CO-45`)."""
        shown = self.denials or self.adjustments
        codes = ", ".join(dict.fromkeys(f"{a.group}-{a.carc}" for a in shown)) or "no adjustment"
        remarks = ", ".join(sorted(self.remarks()))
        return codes + (f" ({remarks})" if remarks else "")

    def citation(self) -> str:
        """The claim and its denial as a payer's reviewer looks them up: claim id, control number,
        group and reason codes, remark codes."""
        codes = ", ".join(dict.fromkeys(f"{a.group}-{a.carc}" for a in self.denials))
        remarks = ", ".join(sorted(self.remarks()))
        cited = (
            f"Claim {self.claim_id} (payer claim control number {self.remit['payer_claim_control_number']})"
        )
        if not codes:  # not a denial: an adjustment the payer made (an underpaid CO-45)
            adjusted = ", ".join(dict.fromkeys(f"{a.group}-{a.carc}" for a in self.adjustments))
            return f"{cited}, adjusted with {adjusted or 'no adjustment'}"
        return f"{cited}, denied with {codes}" + (f" (remarks {remarks})" if remarks else "")


def facts_from(claim_result: dict[str, Any], remit: dict[str, Any]) -> Facts:
    """Facts from a `get_claim` result and one remittance of `get_remittance`."""
    adjustments = [
        Adj(None, (), a["group_code"], a["reason_code"], a["amount"], a["description"] is not None)
        for a in remit["claim_adjustments"]
    ]
    for line in remit["lines"]:
        adjustments += [
            Adj(
                line["line_number"],
                tuple(line["modifiers"]),
                a["group_code"],
                a["reason_code"],
                a["amount"],
                a["description"] is not None,
            )
            for a in line["adjustments"]
        ]
    return Facts(
        claim=claim_result["claim"],
        balance=claim_result["insurance_balance"],
        remit=remit,
        adjustments=adjustments,
    )


class Desk:
    """One working session on one work item."""

    def __init__(self, item: WorkItem) -> None:
        self.item = item
        # The work item's claim; for a queue, the first claim it lists.
        claims = item.payload.get("claims") or [{}]
        self.claim_id = str(item.payload.get("claim_id") or claims[0].get("claim_id", ""))
        self.today = date.fromisoformat(str(item.payload["worked_on"]))
        self.limit = float(item.payload["write_off_approval_limit"])
        self._count = 0
        self._seen: dict[str, tuple[str, Any]] = {}
        """Answers of reads already made (key: the call), with the claim they are about."""
        self._read: list[Read] = []
        """Every read that answered, in order (what a note's evidence sentence states)."""

    def call(self, name: str, **arguments: Any) -> ToolCall:
        self._count += 1
        return ToolCall(call_id=f"call-{self._count}", name=name, arguments=arguments)

    def read(self, name: str, **arguments: Any) -> Script:
        """A read, retried while the failure is transient; None if it never answers. A read already
        answered is not asked again until a write touches its claim (a queue is triaged first)."""
        key = json.dumps([name, arguments], sort_keys=True, default=str)
        if key in self._seen:
            return self._seen[key][1]
        for _ in range(ATTEMPTS):
            result = yield self.call(name, **arguments)
            if result.outcome is ToolOutcome.OK:
                self._seen[key] = (str(arguments.get("claim_id", "")), result.result)
                self._read.append((name, arguments, result.result))
                return result.result
            if not (result.error and result.error.retryable):
                return None
        return None

    def reread(self, name: str, **arguments: Any) -> Script:
        """A read asked again even when answered before: what it reads changes without any write of
        ours (a payer publishes a bulletin while the queue is worked)."""
        self._seen.pop(json.dumps([name, arguments], sort_keys=True, default=str), None)
        return (yield from self.read(name, **arguments))

    def answers(self, name: str) -> list[Any]:
        """The answers of tool `name` still remembered."""
        return [v[1] for k, v in self._seen.items() if json.loads(k)[0] == name]

    def forget_tool(self, name: str) -> None:
        """Drop every answer of tool `name` (a payer's rules, once a new bulletin is out)."""
        self._seen = {k: v for k, v in self._seen.items() if json.loads(k)[0] != name}

    def write(
        self, name: str, applied: Callable[[dict[str, Any]], bool] | None = None, **arguments: Any
    ) -> Script:
        """A write; after an unknown outcome, read the claim and send again only if it did not land."""
        touched = str(arguments.get("claim_id", ""))
        field = TEXT_FIELDS.get(name)
        if field is not None:
            arguments[field] = self.with_evidence(touched, str(arguments.get(field) or ""), field)
        self._forget(touched)
        for _ in range(ATTEMPTS):
            result = yield self.call(name, **arguments)
            if result.outcome is ToolOutcome.OK:
                return result.result or {}
            if result.outcome is ToolOutcome.UNKNOWN and applied is not None:
                self._forget(touched)  # the write may have landed: look again
                claim = yield from self.read("get_claim", claim_id=arguments["claim_id"])
                if claim is not None and applied(claim):
                    return {}
                continue
            if not (result.error and result.error.retryable):
                return None
        return None

    def with_evidence(self, claim_id: str, text: str, field: str) -> str:
        """The text, ending with what the evidence reads returned about the claim (a note or
        letter that decides a claim says what it rests on)."""
        procedures = [
            str(line["procedure_code"])
            for name, args, answer in self._read
            if name == "get_claim" and args.get("claim_id") == claim_id and isinstance(answer, dict)
            for line in (answer.get("claim") or {}).get("lines", [])
        ]
        said = evidence_note(claim_id, list(dict.fromkeys(procedures)), self._read)
        if not said or said in text:
            return text
        room = (NOTE_LIMIT if field == "note" else REASON_LIMIT) - len(text) - 1
        return f"{text} {said[:room]}".strip() if room > 40 else text

    def _forget(self, claim_id: str) -> None:
        """Drop the reads about `claim_id`: a write on it changes what they answer."""
        self._seen = {k: v for k, v in self._seen.items() if v[0] != claim_id}

    # -- office rules ---------------------------------------------------------------------------
    def escalate(
        self, facts_claim_id: str, queue: str, action: str, reason: str, amount: float | None = None
    ) -> Script:
        args: dict[str, Any] = {
            "claim_id": facts_claim_id,
            "queue": queue,
            "recommended_action": action,
            "reason": f"Claim {facts_claim_id}: {reason}",
        }
        if amount is not None:
            args["amount"] = round(amount, 2)
        return (yield from self.write("escalate_to_human", **args))

    def write_off(self, facts: Facts, amount: float, reason_code: str, why: str) -> Script:
        """Post a write-off, or hand it to a supervisor when it would pass the approval limit
        (contractual adjustments at the contracted rate are not discretionary: they never do)."""
        amount = round(amount, 2)
        counted = 0.0 if reason_code == "contractual" else amount
        if facts.written_off + counted > self.limit + 0.005:
            reason = f"{why}; write-off of ${amount:.2f} is above the ${self.limit:.2f} approval limit"
            return (yield from self.escalate(facts.claim_id, "supervisor", "write_off", reason, amount))
        before = facts.balance

        def landed(claim: dict[str, Any]) -> bool:
            return bool(claim["insurance_balance"] < before - 0.005)

        done = yield from self.write(
            "post_write_off",
            landed,
            claim_id=facts.claim_id,
            amount=amount,
            reason_code=reason_code,
            note=f"{facts.codes()}: ${amount:.2f} {why}",
        )
        facts.written_off += counted
        facts.balance = round(facts.balance - amount, 2)
        return done

    def appeal(self, facts: Facts, basis: str, argument: str, attachments: list[str]) -> Script:
        """File an appeal whose letter cites the claim and its denial, then argues the basis."""
        return (
            yield from self.write(
                "submit_appeal",
                claim_id=facts.claim_id,
                basis=basis,
                reason=f"{facts.citation()}. {argument}",
                attachment_document_ids=attachments,
            )
        )

    def transfer(self, facts: Facts, amount: float, reason: str) -> Script:
        """Bill the patient for an amount the remittance makes theirs."""
        before = facts.balance

        def landed(claim: dict[str, Any]) -> bool:
            return bool(claim["insurance_balance"] < before - 0.005)

        done = yield from self.write(
            "transfer_to_patient_responsibility",
            landed,
            claim_id=facts.claim_id,
            amount=round(amount, 2),
            reason=reason,
            note=f"{facts.codes()}: ${amount:.2f} to the patient ({reason.replace('_', ' ')})",
        )
        facts.balance = round(facts.balance - amount, 2)
        return done

    def correct(self, facts: Facts, corrections: dict[str, Any], note: str) -> Script:
        """Send the corrected claim: a new claim (frequency 1) when the payer returned the claim as
        unprocessable (MA130: never adjudicated, nothing to replace or appeal), otherwise a
        replacement (frequency 7) quoting the original's control number."""
        note = f"{facts.codes()}: {note}"
        if UNPROCESSABLE in facts.remarks():
            return (yield from self.new_claim(facts, corrections, note))
        return (yield from self.replace(facts, corrections, note))

    def new_claim(self, facts: Facts, corrections: dict[str, Any], note: str) -> Script:
        """Send a new original claim (frequency 1) in place of a returned one."""

        def landed(claim: dict[str, Any]) -> bool:
            return bool(claim["claim"]["status"] == "resubmitted")

        return (
            yield from self.write(
                "submit_new_claim", landed, claim_id=facts.claim_id, corrections=corrections, note=note
            )
        )

    def replace(self, facts: Facts, corrections: dict[str, Any], note: str) -> Script:
        """Send a replacement claim (frequency 7) quoting the original's control number."""

        def landed(claim: dict[str, Any]) -> bool:
            return bool(claim["claim"]["status"] == "replaced")

        return (
            yield from self.write(
                "submit_replacement_claim",
                landed,
                claim_id=facts.claim_id,
                original_claim_control_number=facts.remit["payer_claim_control_number"],
                corrections=corrections,
                note=note,
            )
        )


DONE = "case worked"
next_action = partial(replay_script, done=DONE)
"""(script, turns) → the next call; `Finish` once the case is worked. What makes a generator script
a stateless policy: the same work item and results give the same calls."""
