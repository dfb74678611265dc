"""Units the payer cut: CO-151 with a units remark (N362, M53) pays only the units the payer finds
supported. The visit note decides the rest: when its documented minutes of timed treatment support
every unit billed (the 8-minute rule, `units.json`), the cut units are appealed with the note
attached; when they support fewer, or the note records no time, the cut units are written off.
The 835, the claim and the document list look the same either way: only the note's text differs.

The reference's handling (`work_units`) and the generator family (`units_case`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, coded, recent, record, swap
from envs.rcm.desk import Desk, Facts, Script
from envs.rcm.playbooks import appeal_open, documents, needs_human, read_all, rules, write_off_denial
from envs.rcm.worldgen import LineSpec

CARC_UNITS = "151"
"""The CARC of a payment cut to the units the payer finds supported."""
WRITE_OFF_REASON = "administrative"
"""How the cut units the record does not support are written off (not a clinical denial)."""


@dataclass(frozen=True)
class UnitRules:
    """The 8-minute rule and the phrases a note states its timed minutes in (`units.json`)."""

    minutes_per_unit: int
    least_minutes: int
    timed_codes: dict[str, str]
    remarks: frozenset[str]
    minutes: tuple[re.Pattern[str], ...]


@cache
def unit_rules() -> UnitRules:
    raw = json.loads(files("envs.rcm").joinpath("units.json").read_text(encoding="utf-8"))
    return UnitRules(
        minutes_per_unit=int(raw["minutes_per_unit"]),
        least_minutes=int(raw["least_minutes_of_a_unit"]),
        timed_codes={str(k): str(v) for k, v in raw["timed_codes"].items()},
        remarks=frozenset(map(str, raw["units_remarks"])),
        minutes=tuple(re.compile(p, re.IGNORECASE) for p in raw["minutes"]),
    )


def units_for(minutes: int) -> int:
    """The units `minutes` of timed treatment support: one per full unit of time, one more when the
    remainder reaches the least minutes of a unit."""
    rules_ = unit_rules()
    full, rest = divmod(minutes, rules_.minutes_per_unit)
    return full + (1 if rest >= rules_.least_minutes else 0)


def timed_minutes(text: str) -> int | None:
    """The minutes of timed treatment a note documents, or None when it records no time."""
    for pattern in unit_rules().minutes:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None


def work_units(desk: Desk, facts: Facts) -> Script:
    """CO-151 with a units remark: read the claim's clinical notes; when their timed minutes support
    every unit billed and the appeal window is open, appeal the cut units with the notes attached;
    otherwise write the cut units off."""
    if not facts.remarks() & unit_rules().remarks:
        return (yield from needs_human(desk, facts, "CO-151 without a units remark: what was cut?", "coding"))
    cut = {a.line for a in facts.denials if a.carc == CARC_UNITS}
    billed = sum(int(x["units"]) for x in facts.claim["lines"] if x["line_number"] in cut)
    notes = [
        str(d["document_id"])
        for d in (yield from documents(desk, facts))
        if d["kind"] in ("medical_record", "operative_note") and d["claim_id"] == facts.claim_id
    ]
    read = yield from read_all(desk, notes)
    found = [m for m in (timed_minutes(str(d.get("text") or "")) for d in read) if m is not None]
    minutes = max(found, default=None)
    payer_rules = yield from rules(desk, facts)
    supports = minutes is not None and units_for(minutes) >= billed
    if supports and payer_rules and appeal_open(desk, facts, payer_rules):
        argument = (
            f"The visit note ({', '.join(notes)}) documents {minutes} minutes of timed treatment, "
            f"which supports the {billed} units billed at {unit_rules().minutes_per_unit} minutes a "
            "unit (the 8-minute rule). Please reprocess the units cut and pay them."
        )
        return (yield from desk.appeal(facts, "coding", argument, notes))
    why = (
        f"the note documents {minutes} minutes of timed treatment, fewer than the {billed} units billed"
        if minutes is not None
        else "the note records no treatment time to support the units cut"
    )
    return (yield from write_off_denial(desk, facts, WRITE_OFF_REASON, why))


_PHRASES = (
    "Timed treatment: {name} ({code}), {minutes} minutes of direct one-on-one time.",
    "{name} ({code}) as planned. Total timed treatment time: {minutes} minutes.",
)
_NO_TIME = "{name} ({code}) performed as tolerated; treatment time was not recorded."


def units_case(ctx: Ctx, supported: bool | None = None) -> Case:
    """A timed code billed for 3 to 5 units, paid for fewer (CO-151 on the rest, N362 or M53). The
    note documents minutes supporting every unit (`time_supports_units`), minutes supporting only the
    units paid (`time_supports_fewer`), or no time (`no_time`); `supported` forces the first or the
    second from the same draw (twins)."""
    rng, b = ctx.rng, ctx.b
    roll = rng.random()
    variant = "time_supports_units" if roll < 0.5 else "time_supports_fewer" if roll < 0.8 else "no_time"
    if supported is not None:
        variant = "time_supports_units" if supported else "time_supports_fewer"
    code = rng.choice(sorted(unit_rules().timed_codes))
    billed = rng.randrange(3, 6)
    paid = rng.randrange(1, billed)
    per_unit = float(rng.randrange(60, 110))
    step, least = unit_rules().minutes_per_unit, unit_rules().least_minutes
    # Minutes inside the band that gives exactly that many units under the 8-minute rule.
    full = billed * step - (step - least) + rng.randrange(0, step)
    fewer = paid * step - (step - least) + rng.randrange(0, step)
    phrase = rng.choice(_PHRASES)
    remark = rng.choice(sorted(unit_rules().remarks))
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code, charge=per_unit * billed)], dos)
    claim = swap(ctx, claim, lines=(claim.lines[0].model_copy(update={"units": billed}),))
    name = unit_rules().timed_codes[code].capitalize()
    text = {
        "time_supports_units": phrase.format(name=name, code=code, minutes=full),
        "time_supports_fewer": phrase.format(name=name, code=code, minutes=fewer),
        "no_time": _NO_TIME.format(name=name, code=code),
    }[variant]
    note = record(ctx, claim, coded(claim), extra=text)
    denied = round(per_unit * (billed - paid), 2)
    b.remit(claim, produced, {1: [("CO", CARC_UNITS, denied)]}, {1: (remark,)})
    if variant == "time_supports_units":
        intent = want.appeal(claim.claim_id, "coding", [note])
    else:
        short = want.read_doc(
            note,
            "the note's treatment time does not support the units cut",
            claim.claim_id,
            *want.WRITE_OFF,
        )
        intent = want.write_off(claim.claim_id, WRITE_OFF_REASON, denied, b.limit).citing(short)
    return ctx.case(claim, intent, f"variant:{variant}", f"units:{billed}-{paid}")
