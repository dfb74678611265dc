"""Blind moves of the denial desk: what a desk can do from the visible facts alone.

A blind desk reads the work item, the 835, the claim and the document *list* (kinds, whether
signed), never a document, the payer's rules, the authorizations, eligibility or the claim's
status. Each move is one handling applied to a claim from those reads (a write-off with a reason,
an appeal on a basis attaching every document, an unchanged resubmission, a hand-off, ...). The
blind battery (`envs.adversarial.blind`) runs every move on every task, fits the best move per
visible signature on one seed's tasks and scores it on another's: a verifier that pays such a desk
pays for a lookup table, not for reading the evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from envs.adversarial.blind import BlindKit
from envs.contract import Action, Trajectory, Turn
from envs.rcm.desk import PATIENT_SHARE, Desk, Script, next_action
from envs.rollout.policy import PlanPolicy
from schemas.tasks import Task, WorkItem

VISIBLE_READS = ("get_remittance", "get_claim", "get_documents")
"""The reads a blind desk makes; everything else is evidence it never looks at."""


@dataclass(frozen=True)
class Visible:
    """What a blind desk knows of one claim."""

    claim_id: str
    codes: tuple[str, ...]
    """The work item's adjustment codes (`CO-29`, ...)."""
    remit: Mapping[str, Any]
    """The latest remittance, or {}."""
    claim: Mapping[str, Any]
    """The `get_claim` result, or {}."""
    documents: tuple[Mapping[str, Any], ...] = ()
    """The document list's entries (ids, kinds, titles, dates, signed)."""

    @property
    def balance(self) -> float:
        return round(float(self.claim.get("insurance_balance") or 0.0), 2)

    @property
    def remarks(self) -> tuple[str, ...]:
        found = {str(r.get("code")) for line in self.remit.get("lines", []) for r in line.get("remarks", [])}
        return tuple(sorted(found))

    @property
    def labels(self) -> tuple[str, ...]:
        """Document labels: kind, signed or not, this claim's or the patient's."""
        return tuple(
            sorted(
                f"{d.get('kind')}:{'signed' if d.get('signed') else 'unsigned'}"
                f":{'claim' if d.get('claim_id') else 'patient'}"
                for d in self.documents
            )
        )

    def signature(self) -> tuple[str, ...]:
        """Visible signatures from the most specific to the coarsest (codes only, then nothing)."""
        codes = ",".join(self.codes)
        body = self.claim.get("claim") or {}
        flags = f"auth={bool(body.get('prior_auth_number'))};freq={body.get('frequency_code')}"
        remarks = ",".join(self.remarks)
        return (
            f"{codes}|{remarks}|{flags}|{';'.join(self.labels)}",
            f"{codes}|{remarks}|{';'.join(self.labels)}",
            f"{codes}|{remarks}",
            codes,
            "",
        )


def claims_of(item: WorkItem) -> list[tuple[str, tuple[str, ...]]]:
    """(claim id, adjustment codes) of the work item's claim, or of each claim of a queue."""
    entries = item.payload.get("claims") or [item.payload]
    return [(str(e.get("claim_id", "")), tuple(map(str, e.get("adjustment_codes", [])))) for e in entries]


def look(desk: Desk, claim_id: str, codes: tuple[str, ...]) -> Script:
    """The blind reads of one claim."""
    remits = yield from desk.read("get_remittance", claim_id=claim_id)
    claim = yield from desk.read("get_claim", claim_id=claim_id)
    docs = yield from desk.read("get_documents", claim_id=claim_id)
    latest = (remits or {}).get("remittances") or [{}]
    return Visible(claim_id, codes, latest[-1], claim or {}, tuple((docs or {}).get("documents", [])))


def read_everything(desk: Desk, v: Visible) -> Script:
    """Every evidence read of the claim (status and 277CAs, eligibility, authorizations, the payer's
    rules, every document in full, the original of a duplicate), whose answers an evidence-ignoring
    desk then ignores: it makes the reads a deciding fact asks for, and decides as a blind desk."""
    body = v.claim.get("claim") or {}
    yield from desk.read("get_claim_status", claim_id=v.claim_id)
    if body.get("payer_id"):
        yield from desk.read("get_payer_rules", payer_id=body["payer_id"])
        days = sorted(str(ln["service_date"]) for ln in body.get("lines") or [])
        yield from desk.read(
            "check_eligibility",
            payer_id=body["payer_id"],
            member_id=body.get("member_id"),
            **({"service_date": days[0]} if days else {}),
        )
        if body.get("patient_last_name"):
            yield from desk.read(
                "check_eligibility",
                payer_id=body["payer_id"],
                first_name=body.get("patient_first_name"),
                last_name=body.get("patient_last_name"),
                birth_date=body.get("patient_birth_date"),
                **({"service_date": days[0]} if days else {}),
            )
    yield from desk.read("get_authorizations", claim_id=v.claim_id)
    yield from desk.read("find_original_claim", claim_id=v.claim_id)
    for doc in v.documents[:10]:
        yield from desk.read("read_document", document_id=doc["document_id"])


def signature_from(item: WorkItem, turns: Sequence[Turn]) -> tuple[str, ...]:
    """The signature of the work item's first claim, from a blind desk's reads of it."""
    found: dict[str, Any] = {}
    for turn in turns:
        if turn.call.name in VISIBLE_READS and turn.call.name not in found:
            found[turn.call.name] = turn.result.result or {}
    claim_id, codes = claims_of(item)[0]
    remits = (found.get("get_remittance") or {}).get("remittances") or [{}]
    docs = tuple((found.get("get_documents") or {}).get("documents", []))
    return Visible(claim_id, codes, remits[-1], found.get("get_claim") or {}, docs).signature()


Move = Callable[[Desk, Visible], Script]


def _citation(v: Visible) -> str:
    control = v.remit.get("payer_claim_control_number")
    remarks = f" (remarks {', '.join(v.remarks)})" if v.remarks else ""
    return f"Claim {v.claim_id} (payer claim control number {control}), denied with {', '.join(v.codes)}{remarks}"


def write_off(reason: str) -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        if v.balance <= 0:
            return
        if v.balance > desk.limit + 0.005 and reason != "contractual":
            why = f"{_citation(v)}: please approve writing off ${v.balance:.2f} ({reason})."
            yield desk.call(
                "escalate_to_human",
                claim_id=v.claim_id,
                queue="supervisor",
                recommended_action="write_off",
                reason=why,
                amount=v.balance,
            )
            return
        yield desk.call(
            "post_write_off",
            claim_id=v.claim_id,
            amount=v.balance,
            reason_code=reason,
            note=f"{_citation(v)}; written off as {reason}.",
        )

    return move


def transfer(reason: str) -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        if v.balance > 0:
            yield desk.call(
                "transfer_to_patient_responsibility",
                claim_id=v.claim_id,
                amount=v.balance,
                reason=reason,
                note=f"{_citation(v)}; ${v.balance:.2f} to the patient ({reason}).",
            )

    return move


def post_remit(desk: Desk, v: Visible) -> Script:
    """What the 835's group codes suggest: PR shares to the patient, CO-45 written off."""
    for line in v.remit.get("lines", []):
        for adj in line.get("adjustments", []):
            group, code, amount = adj.get("group_code"), adj.get("reason_code"), float(adj.get("amount", 0))
            if amount <= 0:
                continue
            if group == "PR" and code in PATIENT_SHARE:
                yield desk.call(
                    "transfer_to_patient_responsibility",
                    claim_id=v.claim_id,
                    amount=amount,
                    reason=PATIENT_SHARE[code],
                )
            elif group == "CO" and code in ("45", "131", "253"):
                yield desk.call(
                    "post_write_off",
                    claim_id=v.claim_id,
                    amount=amount,
                    reason_code="contractual",
                    note=f"{_citation(v)}; contractual adjustment.",
                )


_ARGUMENT = {
    "timely_filing": "The claim was filed within the payer's timely filing limit, as the attached proof shows.",
    "medical_necessity": "The service was medically necessary, as the attached records and letter show.",
    "authorization": "The service was authorized, as the attached documents show.",
    "coding": "The codes billed are correct and supported by the attached documentation.",
    "underpayment": "The claim was paid below the contracted rate; please reprocess at the contract rate.",
    "other": "The denial is not supported by the attached documentation; please reprocess the claim.",
}


def appeal(basis: str) -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        docs = [str(d["document_id"]) for d in v.documents][:10]
        acks = [
            a
            for a in (v.claim.get("claim") or {}).get("acknowledgments") or []
            if a.get("action") == "accepted"
        ]
        filed = f" The payer's 277CA accepted the claim on {acks[-1]['ack_date']}." if acks else ""
        yield desk.call(
            "submit_appeal",
            claim_id=v.claim_id,
            basis=basis,
            reason=f"{_citation(v)}.{filed} {_ARGUMENT[basis]} We ask that the claim be reprocessed for payment.",
            attachment_document_ids=docs,
        )

    return move


def resubmit(tool: str) -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        args: dict[str, Any] = {"claim_id": v.claim_id, "corrections": {}, "note": "corrected claim"}
        if tool == "submit_replacement_claim":
            args["original_claim_control_number"] = str(
                v.remit.get("payer_claim_control_number") or "UNKNOWN"
            )
        yield desk.call(tool, **args)

    return move


def escalate(queue: str, action: str = "review") -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        args: dict[str, Any] = {
            "claim_id": v.claim_id,
            "queue": queue,
            "recommended_action": action,
            "reason": f"{_citation(v)}. Balance ${v.balance:.2f}; a human must decide how to work it.",
        }
        if action == "write_off":
            args["amount"] = v.balance
        yield desk.call("escalate_to_human", **args)

    return move


def close(reason: str) -> Move:
    def move(desk: Desk, v: Visible) -> Script:
        yield desk.call(
            "close_claim", claim_id=v.claim_id, reason=reason, note=f"{_citation(v)}; closed ({reason})."
        )

    return move


def retro_auth(desk: Desk, v: Visible) -> Script:
    body = v.claim.get("claim") or {}
    lines = body.get("lines") or []
    if not lines:
        return
    yield desk.call(
        "request_authorization",
        patient_id=body.get("patient_id"),
        payer_id=body.get("payer_id"),
        procedure_codes=sorted({str(ln["procedure_code"]) for ln in lines})[:10],
        diagnosis_codes=list(body.get("diagnosis_codes") or [])[:12],
        service_date=min(str(ln["service_date"]) for ln in lines),
        claim_id=v.claim_id,
        note=f"{_citation(v)}; retro-authorization requested for the service.",
    )


def nothing(desk: Desk, v: Visible) -> Script:
    return
    yield  # a generator that makes no call


# fmt: off
MOVES: dict[str, Move] = {
    "nothing": nothing,
    "post_remit": post_remit,
    **{f"write_off:{r}": write_off(r) for r in (
        "contractual", "timely_filing", "no_authorization", "not_medically_necessary", "bundled",
        "small_balance", "administrative",
    )},
    **{f"transfer:{r}": transfer(r) for r in ("non_covered_with_waiver", "coverage_terminated", "other")},
    **{f"appeal:{b}": appeal(b) for b in _ARGUMENT},
    "replace": resubmit("submit_replacement_claim"),
    "new_claim": resubmit("submit_new_claim"),
    "retro_auth": retro_auth,
    **{f"escalate:{q}": escalate(q) for q in ("supervisor", "credentialing", "coding", "billing", "compliance")},
    "escalate:supervisor:write_off": escalate("supervisor", "write_off"),
    **{f"close:{r}": close(r) for r in (
        "duplicate_of_paid_original", "duplicate_of_original_in_process", "paid_as_expected", "no_action_needed",
    )},
}
# fmt: on
"""Every blind move by name."""

# fmt: off
CODE_TABLE: dict[str, str] = {
    "16": "replace", "4": "replace", "31": "replace", "29": "appeal:timely_filing",
    "50": "appeal:medical_necessity", "97": "write_off:bundled", "197": "retro_auth", "15": "retro_auth",
    "18": "close:duplicate_of_paid_original", "22": "escalate:billing", "109": "escalate:billing",
    "27": "transfer:coverage_terminated", "45": "post_remit", "1": "post_remit", "2": "post_remit",
    "3": "post_remit", "B7": "escalate:credentialing", "253": "post_remit", "131": "post_remit",
}
# fmt: on
"""The fixed CARC → move table a desk without judgment works from (the first code that is not
the patient's share or contractual decides; else the 835 is posted as it stands)."""


def by_code(v: Visible) -> str:
    """The code table's move for a claim."""
    carcs = [c.split("-", 1)[-1] for c in v.codes]
    denial = [c for c in carcs if c not in ("1", "2", "3", "45", "131", "253")]
    return CODE_TABLE.get(denial[0], "escalate:billing") if denial else "post_remit"


def by_label(v: Visible) -> str:
    """The label desk: the document list decides where it can, the code table elsewhere."""
    kinds = {str(d.get("kind")) for d in v.documents}
    signed = {str(d.get("kind")) for d in v.documents if d.get("signed")}
    carcs = {c.split("-", 1)[-1] for c in v.codes}
    if "proof_of_timely_filing" in kinds and "29" in carcs:
        return "appeal:timely_filing"
    if "abn_waiver" in signed and carcs & {"50", "96", "204"}:
        return "transfer:non_covered_with_waiver"
    if "letter_of_medical_necessity" in kinds and carcs & {"50", "197", "15"}:
        return "appeal:medical_necessity"
    if carcs & {"50"} and "letter_of_medical_necessity" not in kinds:
        return "write_off:not_medically_necessary"
    return by_code(v)


@dataclass(frozen=True)
class BlindPlan:
    """A blind desk: for each claim, the move its chooser picks from the visible reads."""

    choose: Callable[[Visible], str]
    reads_all: bool = False
    """Whether the desk makes every evidence read first (and ignores the answers)."""

    def __call__(self, item: WorkItem, turns: tuple[Turn, ...]) -> Action:
        return next_action(self.script(item), turns)

    def script(self, item: WorkItem) -> Script:
        desk = Desk(item)
        for claim_id, codes in claims_of(item):
            seen = yield from look(desk, claim_id, codes)
            if self.reads_all:
                yield from read_everything(desk, seen)
            yield from MOVES[self.choose(seen)](desk, seen)


@dataclass(frozen=True)
class Fixed:
    """Always the same move."""

    move: str

    def __call__(self, v: Visible) -> str:
        return self.move


@dataclass(frozen=True)
class Fitted:
    """The best move per visible signature (most specific signature seen in fitting first)."""

    table: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, v: Visible) -> str:
        return next((self.table[s] for s in v.signature() if s in self.table), "nothing")


def move_policy(name: str) -> PlanPolicy:
    """The blind desk that makes move `name` on every claim."""
    return PlanPolicy(f"blind:{name}", BlindPlan(Fixed(name)))


def fitted_policy(table: Mapping[str, str]) -> PlanPolicy:
    """The learned blind desk for a signature → move table."""
    return PlanPolicy("blind:learned", BlindPlan(Fitted(dict(table))))


CODE_TABLE_POLICY = PlanPolicy("blind:code_table", BlindPlan(by_code))
LABEL_DESK_POLICY = PlanPolicy("blind:label_desk", BlindPlan(by_label))
IGNORING_CODE_TABLE_POLICY = PlanPolicy("ignoring:code_table", BlindPlan(by_code, reads_all=True))
"""The code table after every evidence read: reads what a deciding fact asks for, decides blind."""
IGNORING_LABEL_DESK_POLICY = PlanPolicy("ignoring:label_desk", BlindPlan(by_label, reads_all=True))
"""The label desk after every evidence read."""


def _signature(task: Task, trajectory: Trajectory) -> tuple[str, ...]:
    return signature_from(task.work_item, trajectory.turns)


def _one_claim(task: Task) -> bool:
    return "claims" not in task.work_item.payload


BLIND = BlindKit(
    moves={name: move_policy(name) for name in MOVES},
    signature=_signature,
    learned=fitted_policy,
    fixed=(CODE_TABLE_POLICY, LABEL_DESK_POLICY, IGNORING_CODE_TABLE_POLICY, IGNORING_LABEL_DESK_POLICY),
    fittable=_one_claim,
)
"""The denial desk's blind battery."""
