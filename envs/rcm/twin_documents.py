"""Twin edits of a document's content: what a read returns changes, the document list does not.

A chart's coding summary gains or loses the distinct-procedure modifier of a bundled line (with
the narrative sentence that documents it); an ABN names another service than the billed one, or
no reason, or the billed service. The document's kind, title, date and signature stay, so a desk
that reads only the list sees the same claim.
"""

from __future__ import annotations

import random
import re

from adapters.rcm import World
from adapters.rcm.codes import DISTINCT_PROCEDURE_MODIFIERS
from adapters.rcm.models import Document
from envs.rcm.charts import abn_text

CHART_KINDS = ("medical_record", "operative_note")
ABN_SERVICES = ("82607", "97110", "93000", "20610", "72148")
"""Services an ABN is given for in generated worlds (`cases.carc50`, `cases_edge.invalid_abn`)."""


def _denied_lines(world: World, claim_id: str, carc: str) -> list[int]:
    remit = world.latest_remittance(claim_id)
    if remit is None:
        return []
    return [
        line.line_number
        for line in remit.lines
        if any(a.reason_code == carc for a in line.adjustments) and line.line_number is not None
    ]


def _chart(world: World, claim_id: str) -> Document | None:
    charts = [d for d in world.documents.values() if d.claim_id == claim_id and d.kind in CHART_KINDS]
    return charts[0] if len(charts) == 1 else None


def _with_document(world: World, document: Document) -> World:
    return world.model_copy(update={"documents": {**world.documents, document.document_id: document}})


def _summary_line(number: int) -> re.Pattern[str]:
    return re.compile(rf"^Line {number}: (\w{{5}})((?: \w{{2}})*) \(POS (\d{{2}})\)$", re.M)


def chart_without_distinct(world: World, claim_id: str, notes: dict[str, str]) -> tuple[World, str] | None:
    """The world whose chart no longer documents the bundled line as distinct (its modifier and
    the sentence saying why are gone); with the chart's id."""
    chart = _chart(world, claim_id)
    lines = _denied_lines(world, claim_id, "97")
    if chart is None or not lines:
        return None
    text = chart.text
    for number in lines:
        found = _summary_line(number).search(text)
        if found is None:
            return None
        kept = [m for m in found.group(2).split() if m not in DISTINCT_PROCEDURE_MODIFIERS]
        mods = "".join(f" {m}" for m in kept)
        text = (
            text[: found.start()]
            + f"Line {number}: {found.group(1)}{mods} (POS {found.group(3)})"
            + text[found.end() :]
        )
    for sentence in notes.values():
        text = text.replace(f" {sentence}", "").replace(sentence, "")
    if text == chart.text:
        return None
    return _with_document(world, chart.model_copy(update={"text": text})), chart.document_id


def chart_with_distinct(
    world: World, claim_id: str, notes: dict[str, str], rng: random.Random
) -> tuple[World, str, str] | None:
    """The world whose chart documents the bundled line as distinct: a modifier on its coding
    summary line and the sentence that says why; with the chart's id and the modifier."""
    chart = _chart(world, claim_id)
    lines = _denied_lines(world, claim_id, "97")
    if chart is None or len(lines) != 1 or "\n\nCoding summary" not in chart.text:
        return None
    found = _summary_line(lines[0]).search(chart.text)
    if found is None or set(found.group(2).split()) & DISTINCT_PROCEDURE_MODIFIERS.keys():
        return None
    modifier = rng.choice(sorted(notes))
    coded = f"Line {lines[0]}: {found.group(1)}{found.group(2)} {modifier} (POS {found.group(3)})"
    text = chart.text[: found.start()] + coded + chart.text[found.end() :]
    narrative, _, summary = text.partition("\n\nCoding summary")
    text = f"{narrative.rstrip()} {notes[modifier]}\n\nCoding summary{summary}"
    return _with_document(world, chart.model_copy(update={"text": text})), chart.document_id, modifier


def _abn(world: World, claim_id: str) -> Document | None:
    patient = world.claims[claim_id].patient_id
    abns = [
        d
        for d in world.documents.values()
        if d.kind == "abn_waiver" and d.patient_id == patient and d.claim_id in (claim_id, None)
    ]
    return abns[0] if len(abns) == 1 else None


def abn_not_counting(world: World, claim_id: str, rng: random.Random) -> tuple[World, str, str] | None:
    """The world whose ABN names another service, or gives no reason Medicare may not pay; with
    the ABN's id and the flaw."""
    abn = _abn(world, claim_id)
    if abn is None or not abn.procedure_codes:
        return None
    flaw = rng.choice(("other_service", "no_reason"))
    if flaw == "other_service":
        other = rng.choice([c for c in ABN_SERVICES if c not in abn.procedure_codes])
        edited = abn.model_copy(
            update={"procedure_codes": (other,), "text": abn_text(other, abn.noncoverage_reason)}
        )
    else:
        edited = abn.model_copy(update={"noncoverage_reason": "", "text": abn_text()})
    return _with_document(world, edited), abn.document_id, flaw


def abn_for_the_service(world: World, claim_id: str, reason: str) -> tuple[World, str] | None:
    """The world whose ABN, signed before the service, names the billed GA service and why
    Medicare may not pay for it; with the ABN's id."""
    abn = _abn(world, claim_id)
    claim = world.claims[claim_id]
    services = [line for line in claim.lines if "GA" in line.modifiers]
    if abn is None or not abn.signed or len(services) != 1:
        return None
    if abn.document_date > services[0].service_date:
        return None
    code = services[0].procedure_code
    edited = abn.model_copy(
        update={"procedure_codes": (code,), "noncoverage_reason": reason, "text": abn_text(code, reason)}
    )
    return _with_document(world, edited), abn.document_id


def chart_without_coding(world: World, claim_id: str) -> tuple[World, str] | None:
    """The world whose chart records no coding and names no provider (the note is still awaiting
    the provider's completion): nothing on file tells what the claim should carry; with the
    chart's id."""
    chart = _chart(world, claim_id)
    if chart is None or "Coding summary" not in chart.text:
        return None
    first = world.patients[world.claims[claim_id].patient_id].first_name
    text = (
        f"{first} was seen in the office. The note is awaiting the provider's completion: no services, "
        "diagnoses or modifiers have been recorded yet."
    )
    return _with_document(world, chart.model_copy(update={"text": text})), chart.document_id
