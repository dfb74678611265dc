"""What a clinical note's narrative says when the note has no coding summary.

A coder reads the prose: who saw the patient (a rendering provider named with an NPI) and whether
a service the payer bundled was distinct (a separate site or lesion, a separate encounter, another
practitioner). The phrases are data (`narrative.json`, citing the NCCI policy manual); a note that
also says the services shared the site or session documents nothing distinct.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from envs.rcm.vocab import valid_npi


@dataclass(frozen=True)
class Distinct:
    """One distinct-procedure modifier and the phrases that document it."""

    modifier: str
    why: str
    patterns: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class NarrativeData:
    """`narrative.json`, parsed."""

    rendering: tuple[re.Pattern[str], ...]
    distinct: tuple[Distinct, ...]
    not_distinct: tuple[re.Pattern[str], ...]


@cache
def narrative_data() -> NarrativeData:
    raw = json.loads(files("envs.rcm").joinpath("narrative.json").read_text(encoding="utf-8"))

    def compiled(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.IGNORECASE) for p in patterns)

    return NarrativeData(
        rendering=compiled(raw["rendering"]),
        distinct=tuple(Distinct(d["modifier"], d["why"], compiled(d["patterns"])) for d in raw["distinct"]),
        not_distinct=compiled(raw["not_distinct"]),
    )


def rendering_npi(text: str) -> str | None:
    """The NPI of the provider the narrative says saw the patient, when it is a valid NPI and the
    narrative names only one."""
    found = {m.group(1) for p in narrative_data().rendering for m in p.finditer(text)}
    valid = {npi for npi in found if valid_npi(npi)}
    return valid.pop() if len(valid) == 1 else None


def distinct_modifier(text: str) -> Distinct | None:
    """The modifier the narrative documents a distinct service for, or None when it documents
    none (or also says the services shared the site or session)."""
    data = narrative_data()
    if any(p.search(text) for p in data.not_distinct):
        return None
    return next((d for d in data.distinct if any(p.search(text) for p in d.patterns)), None)
