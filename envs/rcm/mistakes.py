"""Wrong values the way billing staff get them wrong: a neighbouring code, the other side, another
clinician's NPI, a mistyped member id or auth number, the wrong reason on a posting.

Every choice is deterministic (a fixed table, or the first other value found in the world), so a
task always gives the same mutants.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from schemas.tools import ToolCall

Path = tuple[str | int, ...]
Edit = tuple[Path, Any, Any]
"""(argument path, old value, new value)."""

DIAGNOSIS_DECOYS = ("Z00.00", "R69", "J06.9")
"""Diagnoses unrelated to any claim of the generator (a routine exam, an unspecified illness)."""
PROCEDURE_DECOYS = ("99213", "99215", "97110")
MODIFIER_SWAPS = {
    "LT": "RT",
    "RT": "LT",
    "25": "59",
    "59": "25",
    "XU": "25",
    "XS": "25",
    "XE": "25",
    "XP": "25",
    "95": "GT",
    "GA": "GZ",
}
POS_SWAPS = {"11": "22", "22": "11", "10": "02", "02": "10"}
BASIS_SWAPS = {"medical_necessity": "coding", "timely_filing": "medical_necessity"}
WRITE_OFF_REASON_SWAPS = {"contractual": "administrative"}
TRANSFER_REASON_SWAPS = {
    "deductible": "coinsurance",
    "coinsurance": "copay",
    "copay": "deductible",
    "other": "deductible",
}
CLOSE_REASON_SWAPS = {"duplicate_of_paid_original": "no_action_needed"}
ACTION_SWAPS = {"write_off": "appeal"}


def tweak(text: str) -> str:
    """A one-character typo: the last digit or letter moved on by one."""
    chars = list(text)
    for i in range(len(chars) - 1, -1, -1):
        c = chars[i]
        if c.isdigit():
            chars[i] = str((int(c) + 1) % 10)
            return "".join(chars)
        if c.isalpha():
            base = ord("A") if c.isupper() else ord("a")
            chars[i] = chr(base + (ord(c) - base + 1) % 26)
            return "".join(chars)
    return text + "1"


def decoy(options: Sequence[str], current: Sequence[str]) -> str:
    """The first option not already in `current`."""
    return next(o for o in options if o not in current)


def other_npi(world: Mapping[str, Any], npi: str) -> str:
    """Another clinician of the practice (the classic wrong rendering provider), else a typo."""
    for other, provider in sorted(world.get("providers", {}).items()):
        if other != npi and provider.get("kind") == "individual":
            return str(other)
    return tweak(npi)


def _line_edits(world: Mapping[str, Any], index: int, line: Mapping[str, Any]) -> Iterator[Edit]:
    at: Path = ("corrections", "lines", index)
    if line.get("procedure_code"):
        code = line["procedure_code"]
        yield (*at, "procedure_code"), code, decoy(PROCEDURE_DECOYS, [code])
    if line.get("modifiers"):
        old = list(line["modifiers"])
        yield (*at, "modifiers"), old, [MODIFIER_SWAPS.get(m, "25" if m != "25" else "59") for m in old]
    if line.get("place_of_service"):
        pos = line["place_of_service"]
        yield (*at, "place_of_service"), pos, POS_SWAPS.get(pos, "11" if pos != "11" else "22")
    if line.get("units"):
        yield (*at, "units"), line["units"], int(line["units"]) + 1


def _correction_edits(world: Mapping[str, Any], corrections: Mapping[str, Any]) -> Iterator[Edit]:
    if corrections.get("member_id"):
        yield ("corrections", "member_id"), corrections["member_id"], tweak(corrections["member_id"])
    if corrections.get("prior_auth_number"):
        old = corrections["prior_auth_number"]
        yield ("corrections", "prior_auth_number"), old, tweak(old)
    if corrections.get("rendering_npi"):
        old = corrections["rendering_npi"]
        yield ("corrections", "rendering_npi"), old, other_npi(world, old)
    if corrections.get("diagnosis_codes"):
        old = list(corrections["diagnosis_codes"])
        yield ("corrections", "diagnosis_codes"), old, [decoy(DIAGNOSIS_DECOYS, old), *old[1:]]
    for index, line in enumerate(corrections.get("lines") or []):
        yield from _line_edits(world, index, line)
    if any(corrections.get(key) for key in corrections):
        yield ("corrections",), dict(corrections), {}


def _swap(args: Mapping[str, Any], key: str, table: Mapping[str, str], fallback: str) -> Iterator[Edit]:
    if key in args and args[key] is not None:
        old = args[key]
        new = table.get(old, fallback)
        if new != old:
            yield (key,), old, new


def code_edits(world: Mapping[str, Any], call: ToolCall) -> Iterator[Edit]:
    """Wrong codes a write call can carry: corrections (the CARC/RARC-driven fields), the codes of an
    authorization request, the basis of an appeal, the reason of a posting or a closure."""
    args = call.arguments
    if call.name in ("submit_replacement_claim", "submit_new_claim"):
        yield from _correction_edits(world, args.get("corrections") or {})
    elif call.name == "request_authorization":
        for key, decoys in (("procedure_codes", PROCEDURE_DECOYS), ("diagnosis_codes", DIAGNOSIS_DECOYS)):
            old = list(args.get(key) or [])
            if old:
                yield (key,), old, [decoy(decoys, old), *old[1:]]
    elif call.name == "submit_appeal":
        yield from _swap(args, "basis", BASIS_SWAPS, "medical_necessity")
    elif call.name == "post_write_off":
        yield from _swap(args, "reason_code", WRITE_OFF_REASON_SWAPS, "contractual")
    elif call.name == "transfer_to_patient_responsibility":
        yield from _swap(args, "reason", TRANSFER_REASON_SWAPS, "other")
    elif call.name == "close_claim":
        yield from _swap(args, "reason", CLOSE_REASON_SWAPS, "duplicate_of_paid_original")
    elif call.name == "escalate_to_human" and args.get("queue") == "supervisor":
        yield from _swap(args, "recommended_action", ACTION_SWAPS, "write_off")
