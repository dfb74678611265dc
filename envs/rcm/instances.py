"""The identities of an rcm case (`envs.instances.Identities`): who the patient is and which claim.

An instance of a denial case gets new claim ids, a new patient (id, first and last name) and new
member ids in the same layout (digits redrawn, letters kept, so an MBI stays an MBI); payers,
providers, codes and amounts are the case and stay. Pure.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from envs.rcm.vocab import FIRST_NAMES, LAST_NAMES
from schemas.tasks import Task


def _member(rng: random.Random, member: str) -> str:
    digits = [rng.choice("0123456789") if c.isdigit() else c for c in member]
    if member[:1].isdigit():
        digits[0] = rng.choice("123456789")
    return "".join(digits)


def identities(task: Task, rng: random.Random) -> Mapping[str, str]:
    """Every claim id, patient id and name, and member id of `task`'s world, each with a fresh value."""
    world = task.initial_world
    out: dict[str, str] = {}
    taken = {*world.get("claims", {}), *world.get("patients", {})}
    for prefix, key in (("CLM-", "claims"), ("P-", "patients")):
        for old in world.get(key, {}):
            new = old
            while new in taken or new == old:
                new = f"{prefix}{rng.randrange(2000, 9999) if prefix == 'CLM-' else rng.randrange(100, 999)}"
            taken.add(new)
            out[old] = new
    for patient in world.get("patients", {}).values():
        for field, names in (("first_name", FIRST_NAMES), ("last_name", LAST_NAMES)):
            old = patient.get(field)
            if old:
                out[old] = rng.choice([n for n in names if n != old])
    members = {c.get("member_id") for c in world.get("claims", {}).values()}
    members |= {c.get("member_id") for c in world.get("coverages", {}).values()}
    for member in sorted(m for m in members if m):
        out[member] = _member(rng, member)
    return out
