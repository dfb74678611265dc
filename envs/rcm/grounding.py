"""Grounding checks for every text an rcm agent writes: appeal letters, hand-offs, and the notes
of write-offs, corrected claims and closes (`envs.verifiers.grounding` holds the logic).

Each text is read against its claim at the moment it was written: the claim and its 835s, the
patient's documents and authorizations, the payer's rules, the work item, and what the reads
before it returned (the evidence reads are every read but those the data file calls visible: the
835, the claim, the document list). Four checks, each failing on the first call that breaks it:
- `content.rcm.specific`: the text cites a fact of this claim beyond its id; an appeal cites a
  value the evidence reads returned;
- `content.rcm.consistent`: every date and amount it cites is the case's, and it asserts no
  approval or authorization the world does not have;
- `content.rcm.addressed`: it does not talk to its grader, and an appeal names no payer but the
  claim's;
- `content.rcm.minimum_necessary`: no SSN in a text, and an appeal or authorization request
  attaches only the claim's own documents of the kinds its basis calls for.
The phrases, the visible reads and the attachment kinds are data (`grounding.json`, read by
`envs.rcm.grounding_data`); the case a text is read against is `envs.rcm.text_case`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from envs.contract import Trajectory, Turn
from envs.rcm.grounding_data import TEXT_FIELDS, GroundingData, grounding_data
from envs.rcm.text_case import Answer, answer_of, case_facts
from envs.verifiers.evidence import DecidingFact, deciding_facts
from envs.verifiers.grounding import (
    CaseFacts,
    addressee_problem,
    as_cents,
    cited_amounts,
    consistency_problem,
    identifier_problem,
    specific_problem,
)
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

ATTACHING = ("submit_appeal", "request_authorization")
"""The writes that send documents."""


def grounding_checks(task: Task, trajectory: Trajectory) -> Iterator[CheckResult]:
    """The four grounding checks, each over every landed write that carries text (or documents)."""
    data = grounding_data()
    turns = trajectory.turns
    landed = [i for i, t in enumerate(turns) if t.result.outcome in (ToolOutcome.OK, ToolOutcome.UNKNOWN)]
    facts = deciding_facts(task)
    decisive = {i for i in landed if decided(facts, turns[i])}
    written = [
        (i, text)
        for i in landed
        if (text := text_of(turns[i])) or (i in decisive and turns[i].call.name in TEXT_FIELDS)
    ]
    cases: dict[int, CaseFacts] = {}
    answers: list[Answer | None] = []

    def case(index: int) -> CaseFacts:
        if index not in cases:
            answers.extend(answer_of(t) for t in turns[len(answers) : index])
            done = [a for a in answers[:index] if a is not None]
            cases[index] = case_facts(task, done, str(turns[index].call.arguments.get("claim_id", "")))
        return cases[index]

    def specific(i: int, text: str) -> str | None:
        if not text.strip():
            return "it carries no note: a write that decides the claim says what it rests on"
        return specific_problem(
            text,
            case(i),
            from_evidence=turns[i].call.name in data.from_evidence
            or (i in decisive and not corrects(turns[i])),
            common=data.book.common_words,
        ) or amount_problem(turns[i], text)

    def consistent(i: int, text: str) -> str | None:
        return consistency_problem(text, case(i), data.book)

    def addressed(i: int, text: str) -> str | None:
        to = payer_of(task, turns[i]) if turns[i].call.name in data.to_payer else None
        return addressee_problem(text, case(i), data.book, to)

    for short, problem, held in (
        ("specific", specific, "every text cites the facts of its own claim"),
        ("consistent", consistent, "no text cites a date, amount or approval the world does not have"),
        ("addressed", addressed, "every text is addressed to its reader"),
    ):
        if written:
            yield _first_problem(short, turns, written, problem, held)
    sent = [i for i in landed if turns[i].call.name in ATTACHING]
    if written or sent:
        items = [*written, *((i, "") for i in sent if i not in dict(written))]

        def minimum(i: int, text: str) -> str | None:
            return identifier_problem(text, data.book) or attachment_problem(task, turns[i], data)

        yield _first_problem(
            "minimum_necessary",
            turns,
            sorted(items),
            minimum,
            "no text or attachment carries more than the work needs",
        )


def _first_problem(
    short: str,
    turns: Sequence[Turn],
    items: Iterable[tuple[int, str]],
    problem: Callable[[int, str], str | None],
    held: str,
) -> CheckResult:
    for index, text in items:
        why = problem(index, text)
        if why is not None:
            call = turns[index].call
            return CheckResult(
                name=f"content.rcm.{short}",
                kind="content",
                passed=False,
                explanation=f"{call.name} (call {call.call_id}): {why}",
            )
    return CheckResult(name=f"content.rcm.{short}", kind="content", passed=True, explanation=held)


def decided(facts: Sequence[DecidingFact], turn: Turn) -> bool:
    """Whether a deciding fact of the task decides this write: its text must then rest on what
    only the evidence reads showed (a write the visible facts decide needs no evidence)."""
    claim_id = turn.call.arguments.get("claim_id")
    return any(
        (not f.before or turn.call.name in f.before)
        and f.before_arguments.get("claim_id", claim_id) == claim_id
        for f in facts
    )


def corrects(turn: Turn) -> bool:
    """A corrected claim that carries corrections: the corrected values are what it rests on, and
    each is checked against the read that returned it (`envs.rcm.deciding.grounded`)."""
    return turn.call.name in RESUBMISSIONS and bool(turn.call.arguments.get("corrections"))


RESUBMISSIONS = ("submit_replacement_claim", "submit_new_claim")


def text_of(turn: Turn) -> str:
    """The free text a write carries (empty when none)."""
    field = TEXT_FIELDS.get(turn.call.name)
    return str(turn.call.arguments.get(field) or "") if field else ""


def amount_problem(turn: Turn, text: str) -> str | None:
    """Why a write with an amount (a hand-off's write-off to approve, a credit balance to refund)
    does not state it in its text, or None; a credit balance is stated by its size."""
    amount = turn.call.arguments.get("amount")
    if (
        turn.call.name != "escalate_to_human"
        or not isinstance(amount, int | float)
        or isinstance(amount, bool)
    ):
        return None
    if as_cents(amount) in cited_amounts(text):
        return None
    return f"it hands off ${amount:,.2f} but its text does not state the amount"


def payer_of(task: Task, turn: Turn) -> str | None:
    claim = task.initial_world.get("claims", {}).get(str(turn.call.arguments.get("claim_id", "")))
    return str(claim["payer_id"]) if claim else None


def attachment_problem(task: Task, turn: Turn, data: GroundingData) -> str | None:
    """Why a write's attachments are more than its basis needs, or None: each must be a document of
    the claim (or of its patient, with no claim) of a kind the basis calls for."""
    args = turn.call.arguments
    world = task.initial_world
    attached = list(args.get("attachment_document_ids") or [])
    if not attached:
        return None
    claim_id = str(args.get("claim_id") or "")
    claim = world.get("claims", {}).get(claim_id, {})
    patient = claim.get("patient_id", args.get("patient_id"))
    key = "request_authorization" if turn.call.name == "request_authorization" else str(args.get("basis"))
    kinds = data.attachments.get(key)
    for doc_id in attached:
        doc = world.get("documents", {}).get(str(doc_id))
        if doc is None:
            return f"it attaches {doc_id}, which is not on file"
        if doc.get("patient_id") != patient or doc.get("claim_id") not in (claim_id, None):
            return f"it attaches {doc_id}, a document of another claim or patient (minimum necessary)"
        if kinds is not None and doc.get("kind") not in kinds:
            return f"it attaches {doc_id} ({doc.get('kind')}), which a {key} case does not call for"
    return None
