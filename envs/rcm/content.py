"""Content checks: what the agent writes must fit the case (the brief's "what the agent writes is
part of the work").

Deterministic rubrics, one check per kind of writing the trajectory contains:
- an appeal letter cites the claim (its id or the payer's control number) and the denial (a CARC
  in group-code form, and a remark code when the remittance has one), and attaches the document
  types its basis calls for (medical necessity: a signed letter of medical necessity, and the
  claim's clinical record when one is on file), and argues its basis (medical necessity: points to
  the evidence and says what it shows; timely filing: the 277CA acceptance and its date;
  underpayment: the contracted rate and the amount);
- an escalation names the claim, recommends an action its queue may take, and any amount fits
  the claim's open balance on its side of zero (a credit balance is handed off with its negative
  amount; a write-off recommendation always carries one);
- an authorization request matches the claim: its patient, payer, date of service, procedures
  and diagnoses;
- nothing the agent writes (a letter, a hand-off, a note) claims a person's approval no record
  shows or cites an authorization number the world does not have.
- every text it writes (letters, hand-offs, the notes of write-offs, corrected claims and closes)
  is grounded in its own claim: specific, consistent with the world, addressed to its reader, no
  more than the work needs (`envs.rcm.grounding`).
A check fails on the first call that breaks it and names that call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from envs.contract import Trajectory, Turn
from envs.rcm.grounding import grounding_checks
from envs.verifiers.rubrics import Rubric, rubric_checks
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

CONTRACTUAL = ("45",)
PATIENT_SHARE = ("1", "2", "3")
QUEUE_ACTIONS: dict[str, frozenset[str]] = {
    "supervisor": frozenset({"write_off", "patient_responsibility", "appeal", "close", "review"}),
    "billing": frozenset(
        {
            "review",
            "replacement_claim",
            "appeal",
            "bill_other_payer",
            "retro_authorization",
            "close",
            "refund",
            "offset",
        }
    ),
    "coding": frozenset({"review", "replacement_claim"}),
    "credentialing": frozenset({"review"}),
    "compliance": frozenset({"review"}),
}
"""What each human queue may decide; a recommendation outside it cannot be acted on."""
_CLINICAL = ("medical_record", "operative_note")
_277CA = re.compile(r"\b277\s?CA\b|claim acknowledg", re.IGNORECASE)
_EVIDENCE = re.compile(r"record|note|chart|letter|\bLMN\b|documentation", re.IGNORECASE)
_NECESSITY = re.compile(r"necess|\bLMN\b|criteria", re.IGNORECASE)
_CONTRACT = re.compile(r"contract|fee schedule", re.IGNORECASE)


def content_checks(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """One check per kind of writing in the trajectory (none when the agent wrote nothing), and
    one that nothing it wrote invents an approval or an authorization."""
    yield from rubric_checks("rcm", RUBRICS, task, trajectory)
    yield from invented_facts(task, trajectory)
    yield from grounding_checks(task, trajectory)


def appeal_problem(world: Mapping[str, Any], turn: Turn) -> str | None:
    """Why an appeal letter falls short, or None."""
    args = turn.call.arguments
    claim_id = str(args.get("claim_id", ""))
    letter = str(args.get("reason", ""))
    remit = latest_remittance(world, claim_id)
    cited_claim = claim_id and claim_id in letter
    control = remit.get("payer_claim_control_number") if remit else None
    if not cited_claim and not (control and control in letter):
        return "the letter does not cite the claim (its id or the payer's control number)"
    if remit is not None:
        denials = denial_codes(remit)
        if denials and not any(cites_carc(letter, group, code) for group, code in denials):
            wanted = ", ".join(f"{g}-{c}" for g, c in denials)
            return f"the letter does not cite the denial's reason code ({wanted})"
        remarks = remark_codes(remit)
        if remarks and not any(re.search(rf"\b{re.escape(r)}\b", letter) for r in remarks):
            return f"the letter does not cite the remark code ({', '.join(sorted(remarks))})"
    kinds = [world.get("documents", {}).get(d, {}) for d in args.get("attachment_document_ids", [])]
    basis = args.get("basis")
    if basis == "medical_necessity":
        if not any(d.get("kind") == "letter_of_medical_necessity" and d.get("signed") for d in kinds):
            return "a medical-necessity appeal attaches no signed letter of medical necessity"
        on_file = any(
            d.get("kind") in _CLINICAL and d.get("claim_id") == claim_id
            for d in world.get("documents", {}).values()
        )
        if on_file and not any(d.get("kind") in _CLINICAL for d in kinds):
            return "a medical-necessity appeal leaves out the clinical record on file for the claim"
    return argument_problem(str(basis), letter, world, claim_id)


def argument_problem(basis: str, letter: str, world: Mapping[str, Any], claim_id: str) -> str | None:
    """Why the letter does not argue its basis from the case's evidence, or None.

    A floor, not a judge: a medical-necessity letter points to the clinical evidence and says what it
    shows; a timely-filing letter cites the 277CA acceptance and its date; an underpayment letter
    names the contracted rate and the amount. Anything subtler is the rubric judge's to read."""
    if basis == "medical_necessity":
        if not _EVIDENCE.search(letter):
            return "a medical-necessity letter points to no clinical evidence (records, notes, the letter of necessity)"
        claim = world.get("claims", {}).get(claim_id, {})
        codes = {line.get("procedure_code") for line in claim.get("lines", [])} | set(
            claim.get("diagnosis_codes", [])
        )
        if not (_NECESSITY.search(letter) or any(code and code in letter for code in codes)):
            return "a medical-necessity letter never says what the evidence shows about the service"
    if basis == "timely_filing":
        if not _277CA.search(letter):
            return "a timely-filing appeal does not cite the payer's 277CA acceptance, the proof of filing"
        accepted = [
            ack.get("ack_date")
            for ack in world.get("claims", {}).get(claim_id, {}).get("acknowledgments", [])
            if ack.get("action") == "accepted"
        ]
        if not any(_dated(letter, str(day)) for day in accepted):
            return "a timely-filing appeal does not give the date the payer accepted the claim"
    if basis == "underpayment" and not (_CONTRACT.search(letter) and "$" in letter):
        return "an underpayment appeal names neither the contracted rate nor the amount owed"
    return None


def _dated(letter: str, iso: str) -> bool:
    if iso in letter:
        return True
    parts = iso.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return False
    year, month, day = parts
    return f"{month}/{day}/{year}" in letter or f"{int(month)}/{int(day)}/{year}" in letter


def escalation_problem(world: Mapping[str, Any], turn: Turn) -> str | None:
    """Why an escalation's recommendation does not fit the facts, or None."""
    args = turn.call.arguments
    claim_id = str(args.get("claim_id", ""))
    queue, action = str(args.get("queue", "")), str(args.get("recommended_action", ""))
    if claim_id not in str(args.get("reason", "")):
        return "the reason does not name the claim it is about"
    if action not in QUEUE_ACTIONS.get(queue, frozenset()):
        return f"{queue} cannot act on a recommendation to {action}"
    amount = args.get("amount")
    if action == "write_off" and amount is None:
        return "a write-off recommendation carries no amount"
    if amount is not None:
        balance = open_balance(world, claim_id)
        if not fits_balance(amount, balance):
            return f"the amount {amount!r} does not fit the claim's open balance of ${balance:.2f}"
    return None


def fits_balance(amount: object, balance: float) -> bool:
    """Whether a hand-off's amount lies within the open balance, on its side of zero: a credit
    balance (negative: money owed back) is handed off with its negative amount."""
    if isinstance(amount, bool) or not isinstance(amount, int | float) or amount == 0:
        return False
    if balance < 0:
        return balance - 0.005 <= amount < 0
    return 0 < amount <= balance + 0.005


def authorization_problem(world: Mapping[str, Any], turn: Turn) -> str | None:
    """Why an authorization request does not match its claim, or None."""
    args = turn.call.arguments
    claim = world.get("claims", {}).get(str(args.get("claim_id")))
    if claim is None:
        return "the request names no claim on file"
    if args.get("patient_id") != claim.get("patient_id") or args.get("payer_id") != claim.get("payer_id"):
        return "the request's patient or payer is not the claim's"
    procedures = {line.get("procedure_code") for line in claim.get("lines", [])}
    if not set(args.get("procedure_codes", [])) <= procedures:
        return "the request asks for procedures that are not on the claim"
    diagnoses = list(args.get("diagnosis_codes", []))
    if not diagnoses or not set(diagnoses) <= set(claim.get("diagnosis_codes", [])):
        return "the request's diagnoses are missing or not the claim's"
    service_dates = {line.get("service_date") for line in claim.get("lines", [])}
    if str(args.get("service_date")) not in service_dates:
        return "the request's date of service is not the claim's"
    return None


def latest_remittance(world: Mapping[str, Any], claim_id: str) -> Mapping[str, Any] | None:
    """The claim's newest remittance in the world, by production date."""
    remits = [r for r in world.get("remittances", {}).values() if r.get("claim_id") == claim_id]
    return max(remits, key=lambda r: str(r.get("production_date")), default=None)


def denial_codes(remit: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(group, CARC) of each adjustment that is a denial: not contractual, not the patient's share."""
    adjustments = [*remit.get("claim_adjustments", [])]
    for line in remit.get("lines", []):
        adjustments.extend(line.get("adjustments", []))
    codes = [
        (str(a.get("group_code")), str(a.get("reason_code")))
        for a in adjustments
        if a.get("reason_code") not in CONTRACTUAL
        and not (a.get("group_code") == "PR" and a.get("reason_code") in PATIENT_SHARE)
    ]
    return list(dict.fromkeys(codes))


def remark_codes(remit: Mapping[str, Any]) -> set[str]:
    return {str(code) for line in remit.get("lines", []) for code in line.get("remark_codes", [])}


def cites_carc(text: str, group: str, code: str) -> bool:
    """`CO-50`, `CO 50`, `CARC 50` or `reason code 50` in the text."""
    pattern = rf"(?:\b{re.escape(group)}[-\s]?|\bCARC\s*|\breason code\s*){re.escape(code)}\b"
    return re.search(pattern, text, re.IGNORECASE) is not None


def open_balance(world: Mapping[str, Any], claim_id: str) -> float:
    """Charge not yet paid, written off or moved to the patient, before the episode."""
    claim = world.get("claims", {}).get(claim_id, {})
    charge = sum(float(line.get("charge", 0.0)) for line in claim.get("lines", []))

    def total(collection: str, field: str) -> float:
        rows = world.get(collection, {}).values()
        return sum(float(r.get(field, 0.0)) for r in rows if r.get("claim_id") == claim_id)

    return round(
        charge
        - total("remittances", "paid_amount")
        - total("write_offs", "amount")
        - total("patient_transfers", "amount"),
        2,
    )


RUBRICS = tuple(
    Rubric((tool,), short, problem, f"{tool} fits the case")
    for tool, short, problem in (
        ("submit_appeal", "appeal", appeal_problem),
        ("escalate_to_human", "escalation", escalation_problem),
        ("request_authorization", "authorization", authorization_problem),
    )
)


_APPROVED = re.compile(
    r"\b(?:supervisor|manager|director)\b[^.]{0,60}\bapproved\b|\bapproved by (?:a |the |my )?"
    r"(?:supervisor|manager|director)\b",
    re.IGNORECASE,
)
_AUTH_NUMBER = re.compile(
    r"\bauthori[sz]ation(?: number)?\s*(?:#|no\.?)?\s*:?\s*([A-Z]{1,5}-?\d{3,})\b|\b(PA\d{6})\b",
    re.IGNORECASE,
)
TEXT_FIELDS = ("reason", "note", "message")
"""The free-text arguments of a write."""


def known_auth_numbers(task: Task, trajectory: Trajectory) -> set[str]:
    """Authorization numbers the world has: on file at the start, or issued during the episode."""
    found = {str(a.get("auth_number")) for a in task.initial_world.get("authorizations", {}).values()}
    for turn in trajectory.turns:
        body = turn.result.result or {}
        for auth in [body.get("authorization") or {}, *(body.get("authorizations") or [])]:
            if isinstance(auth, Mapping) and auth.get("auth_number"):
                found.add(str(auth["auth_number"]))
    return {n.upper() for n in found if n and n != "None"}


def invented_facts(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """`content.rcm.no_invented_facts`: no text the agent writes claims an approval no record shows
    or an authorization number the world does not have."""
    known: set[str] | None = None
    wrote = False
    for turn in trajectory.turns:
        if turn.result.outcome is ToolOutcome.FAILED:
            continue
        texts = [str(turn.call.arguments.get(f) or "") for f in TEXT_FIELDS]
        text = " ".join(t for t in texts if t)
        if not text:
            continue
        wrote = True
        why = None
        if _APPROVED.search(text):
            why = "claims a person's approval that no record shows"
        else:
            known = known if known is not None else known_auth_numbers(task, trajectory)
            numbers = {(a or b).upper() for a, b in _AUTH_NUMBER.findall(text)}
            if numbers - known:
                why = f"cites authorization {', '.join(sorted(numbers - known))}, which is not on file"
        if why is not None:
            yield CheckResult(
                name="content.rcm.no_invented_facts",
                kind="content",
                passed=False,
                explanation=f"{turn.call.name} (call {turn.call.call_id}) {why}",
            )
            return
    if wrote:
        yield CheckResult(
            name="content.rcm.no_invented_facts",
            kind="content",
            passed=True,
            explanation="nothing it wrote claims an approval or an authorization the world does not have",
        )
