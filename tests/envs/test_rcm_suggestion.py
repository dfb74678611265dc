"""The rcm suggestion (`envs.rcm.promotion.suggested_spec`) on drafts of recorded episodes: the
reference specialist's resolution as one acceptable resolution, nothing ruled out but what the
domain forbids, and still tight enough for the promotion gates (mutants, exploits)."""

from __future__ import annotations

from pathlib import Path

from envs.domain import promotion
from envs.rcm import generate_base
from envs.rcm.moves import PENDING
from tests.workflows.episodes import record, redactor
from workflows.promotion.candidate import candidate_task, gates, suggested_spec


def test_every_suggestion_passes_its_gates_without_ruling_out_the_writes_the_reference_did_not_make(
    tmp_path: Path,
) -> None:
    tasks = generate_base(seed=4, per_carc=1)
    failed = []
    for task in tasks:
        events = record(task, redactor(tmp_path))
        draft = promotion("rcm").build_draft(events, fingerprint="cd" * 16, rule="escalation")
        spec, gold = suggested_spec(draft)
        assert spec.outcome is not None and [a.name for a in spec.outcome.must] == [
            "no_patient_billing_on_co"
        ]
        [reference] = spec.outcome.resolutions
        ruled_out = [a for a in reference.assertions if a.max_count == 0]
        # The only "must not" left: the claim stays open behind work pending with the payer.
        assert all(a.name == "claim_stays_open" for a in ruled_out), ruled_out
        assert bool(ruled_out) == any(c.name in PENDING for c in gold), task.task_id
        report = gates(candidate_task(draft, spec, gold))
        if not report.ok:
            failed.append((task.task_id, report.problems))
    assert failed == []
