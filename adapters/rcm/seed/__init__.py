"""A small hand-written seed world: four payers, twenty patients, one denied claim per CARC row of
the domain brief (plus originals for the duplicates), their 835s, documents and authorizations.

All names, ids and numbers are invented. `SEED_CASES` says which claim exercises which CARC row
and what the correct resolution is, for tests and docs; `SEED_RETURNED_CASES` the same for the
claims the payer rejected or returned as unprocessable (fixed with a new claim); `SEED_RULE_CASES`
for the claims that exercise the rules the simple table hides (fee schedules, ABN validity, COB);
`SEED_DATED_CASES` for the claims under dated payer rules (one with its bulletin still pending).
"""

from __future__ import annotations

from adapters.rcm.seed.base import PAYERS, PRACTICE, PROVIDERS, TODAY
from adapters.rcm.seed.cases import SEED_CASES, SEED_RETURNED_CASES
from adapters.rcm.seed.claims import seed_claims
from adapters.rcm.seed.dated import SEED_DATED_CASES, dated_bulletins, dated_claims, dated_heartland
from adapters.rcm.seed.documents import seed_authorizations, seed_documents
from adapters.rcm.seed.people import COVERAGES, PATIENTS
from adapters.rcm.seed.rules import (
    SEED_RULE_CASES,
    rule_claims,
    rule_documents,
    rule_patients,
    rule_write_offs,
)
from adapters.rcm.world import World


def seed_world() -> World:
    """The seed world: every CARC row of the domain brief, one claim each (see `SEED_CASES`)."""
    claims, remittances = seed_claims()
    more_claims, more_remittances = rule_claims()
    dated, dated_remittances = dated_claims()
    patients, coverages = rule_patients()
    return World(
        today=TODAY,
        practice=PRACTICE,
        payers={p.payer_id: p for p in (*PAYERS, dated_heartland())},
        providers={p.npi: p for p in PROVIDERS},
        patients={p.patient_id: p for p in (*PATIENTS, *patients)},
        coverages={c.coverage_id: c for c in (*COVERAGES, *coverages)},
        claims={c.claim_id: c for c in (*claims, *more_claims, *dated)},
        remittances={r.remittance_id: r for r in (*remittances, *more_remittances, *dated_remittances)},
        documents={d.document_id: d for d in (*seed_documents(), *rule_documents())},
        authorizations={a.auth_id: a for a in seed_authorizations()},
        write_offs={w.write_off_id: w for w in rule_write_offs()},
        bulletins={b.bulletin_id: b for b in dated_bulletins()},
    )


__all__ = ["SEED_CASES", "SEED_DATED_CASES", "SEED_RETURNED_CASES", "SEED_RULE_CASES", "TODAY", "seed_world"]
