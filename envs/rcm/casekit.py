"""The kit case builders share: `Case`, the builder context, dates, charts, wrong claims."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from adapters.rcm.models import Acknowledgment, Claim, DocumentKind, Patient
from adapters.rcm.world import World
from envs.rcm.charts import CodedLine, visit_note
from envs.rcm.faults import Fault, Publication
from envs.rcm.intents import Intent
from envs.rcm.vocab import COMMERCIAL, OFFICE_VISITS
from envs.rcm.worldgen import LineSpec, WorldBuilder


@dataclass(frozen=True)
class QueueItem:
    """One claim of a work queue: its right handling and its deadline (None: no deadline)."""

    claim_id: str
    intent: Intent
    deadline: date | None


@dataclass
class Case:
    """A generated world around one claim, and its right handling."""

    world: World
    claim_id: str
    intent: Intent
    tags: tuple[str, ...]
    faults: list[Fault] = field(default_factory=list)
    category: str | None = None
    """The CARC category when the builder decides it (edge cases wrapped around a base row)."""
    queue: tuple[QueueItem, ...] = ()
    """For a work queue: its claims in the order the work item lists them (`claim_id` is the first)."""
    publications: list[Publication] = field(default_factory=list)
    """Pending payer bulletins the sim publishes after a number of calls (mid-queue)."""


@dataclass
class Ctx:
    """A builder in progress: the world, the patient, and the claim's key dates."""

    b: WorldBuilder
    rng: random.Random
    patient: Patient
    payer_id: str

    def case(self, claim: Claim, intent: Intent, *tags: str) -> Case:
        return Case(self.b.build(), claim.claim_id, intent, tags)


Builder = Callable[[Ctx], Case]


def start(rng: random.Random, today: date, payer_id: str | None = None) -> Ctx:
    """A world with a covered patient and two look-alikes."""
    payer_id = payer_id or rng.choice(("MCR", "MCD", *COMMERCIAL, *COMMERCIAL))
    b = WorldBuilder(rng, today)
    since = b.ago(rng.randrange(400, 3000))
    patient = b.person([(payer_id, "primary", since, None)], senior=payer_id == "MCR")
    b.lookalikes(patient, payer_id)
    return Ctx(b, rng, patient, payer_id)


def twin_variant(rng: random.Random, first: str, second: str, forced: bool | None) -> str:
    """`first` or `second` at even odds, or the one `forced` names (True: `first`); the draw is
    made either way, so a twin and its pair consume the same random numbers."""
    drawn = first if rng.random() < 0.5 else second
    return drawn if forced is None else (first if forced else second)


def recent(ctx: Ctx) -> tuple[date, date]:
    """A date of service and a remittance date inside the payer's appeal window.

    One case in five is drawn close to its appeal deadline (1 to 10 days left): a specialist works
    those first, and an agent must not run them past it. Cases past the window belong to the edge
    distribution.
    """
    rng, b = ctx.rng, ctx.b
    window = b.payer(ctx.payer_id).rules.appeal_window_days
    if rng.random() < 0.2:
        since = rng.randrange(max(1, window - 10), window)
    else:
        since = rng.randrange(1, max(2, min(window - 14, 75)))
    produced = b.ago(since)
    return produced - timedelta(days=rng.randrange(7, 35)), produced


def record(
    ctx: Ctx, claim: Claim, coded: list[CodedLine], *, kind: DocumentKind = "medical_record", extra: str = ""
) -> str:
    """Put the claim's chart on file: narrative and the right coding; returns the document id."""
    clinicians = ctx.b.clinicians
    rendering = next((p for p in clinicians if p.npi == claim.rendering_npi), clinicians[0])
    text = visit_note(ctx.patient.first_name, rendering, claim.diagnosis_codes, coded, extra)
    title = "Visit note" if kind == "medical_record" else "Procedure note"
    doc = ctx.b.document(ctx.patient, claim, kind, title, text)
    return doc.document_id


def coded(claim: Claim) -> list[CodedLine]:
    """The claim's lines as a coder would list them."""
    return [CodedLine(x.line_number, x.procedure_code, x.modifiers, x.place_of_service) for x in claim.lines]


def swap(ctx: Ctx, claim: Claim, **changes: object) -> Claim:
    """The claim as it went out wrong (the chart keeps the right values)."""
    wrong = claim.model_copy(update=changes)
    ctx.b.claims[claim.claim_id] = wrong
    return wrong


def swap_line(ctx: Ctx, claim: Claim, number: int, **changes: object) -> Claim:
    lines = tuple(x.model_copy(update=changes) if x.line_number == number else x for x in claim.lines)
    return swap(ctx, claim, lines=lines)


def visit(ctx: Ctx, codes: tuple[str, ...] = OFFICE_VISITS) -> LineSpec:
    return LineSpec(ctx.rng.choice(codes))


def rejection(day: date, why: str = "invalid subscriber id (2010BA NM109)") -> Acknowledgment:
    """A 277CA front-end rejection: the claim never entered adjudication, so it proves nothing."""
    return Acknowledgment(
        action="rejected", ack_date=day, status_category_code="A7", message=f"rejected: {why}"
    )


def typo(value: str) -> str:
    """A keying error: two neighbouring characters transposed (or one digit off when they match)."""
    for i in range(len(value) - 2, 2, -1):
        if value[i] != value[i + 1]:
            return value[:i] + value[i + 1] + value[i] + value[i + 2 :]
    last = value[-1]
    return value[:-1] + ("1" if last != "1" else "2")
