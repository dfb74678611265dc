"""What rcm texts are grounded against, as data: `grounding.json` (phrases that assert a fact,
text that talks to the grader, identifiers no text needs, the reads that are visible rather than
evidence, the document kinds each appeal basis may attach)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from envs.verifiers.grounding import Phrasebook

TEXT_FIELDS = {
    "submit_appeal": "reason",
    "escalate_to_human": "reason",
    "post_write_off": "note",
    "close_claim": "note",
    "submit_replacement_claim": "note",
    "submit_new_claim": "note",
    "transfer_to_patient_responsibility": "note",
    "request_authorization": "note",
}
"""The free-text argument of each write that carries one."""

DECISIONS = frozenset({"request_authorization"})
"""Writes with text whose answer is the payer's decision (an authorization number): evidence a
later text may cite, unlike the echo of a note."""


@dataclass(frozen=True)
class GroundingData:
    """The data file, read once."""

    book: Phrasebook
    """The phrases: assertions, talk to the grader, identifiers, generic words."""
    visible_reads: frozenset[str]
    """Reads whose answers a blind desk has too (the 835, the claim, the document list)."""
    attachments: Mapping[str, frozenset[str]]
    """Appeal basis (or `request_authorization`) → the document kinds it may attach."""
    from_evidence: frozenset[str]
    """Writes whose text must cite a value the evidence reads returned."""
    to_payer: frozenset[str]
    """Writes whose text goes to the claim's payer (and so names no other)."""
    not_findings: tuple[re.Pattern[str], ...]
    """Sentences of a record that are no finding of it: who signed or examined (an attestation
    names a person; the reference's evidence sentence never quotes one)."""


@cache
def grounding_data() -> GroundingData:
    """`grounding.json`, parsed."""
    raw = json.loads(files("envs.rcm").joinpath("grounding.json").read_text())
    return GroundingData(
        book=Phrasebook.from_data(raw),
        visible_reads=frozenset(raw["visible_reads"]),
        attachments={k: frozenset(v) for k, v in raw["attachments"].items()},
        from_evidence=frozenset(raw["from_evidence"]),
        to_payer=frozenset(raw["to_payer"]),
        not_findings=tuple(re.compile(p, re.IGNORECASE) for p in raw["not_findings"]),
    )
