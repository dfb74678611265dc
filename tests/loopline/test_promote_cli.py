"""`loopline promote list | show` over a draft store: what operators read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.drafting.store import DraftStore, PromotionStatus
from envs.rcm import generate_base
from envs.rcm.promotion import PROMOTION
from loopline.cli import app
from tests.workflows.episodes import record, redactor


@pytest.fixture
def store(tmp_path: Path) -> DraftStore:
    task = next(t for t in generate_base(seed=0, per_carc=1) if "carc:45" in t.tags)
    draft = PROMOTION.build_draft(
        record(task, redactor(tmp_path)), fingerprint="ab" * 16, rule="escalation", threshold=0.9
    )
    store = DraftStore(tmp_path / "drafts")
    store.put_draft(draft)
    store.put_status(
        PromotionStatus(
            draft_id=draft.draft_id,
            workflow_id="promote-x",
            fingerprint=draft.fingerprint,
            stage="awaiting_review",
            round=1,
            updated_at=datetime.now(UTC),
        )
    )
    return store


def test_promote_list_shows_each_draft_with_its_stage_and_fidelity(store: DraftStore) -> None:
    result = CliRunner().invoke(app, ["promote", "list", "--drafts-dir", str(store.root), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["drafts"]
    assert [(r["stage"], r["fidelity"], r["rule"]) for r in rows] == [("awaiting_review", 1.0, "escalation")]


def test_promote_show_prints_the_fidelity_and_refuses_an_unknown_draft(store: DraftStore) -> None:
    draft_id = store.statuses()[0].draft_id
    shown = CliRunner().invoke(app, ["promote", "show", draft_id, "--drafts-dir", str(store.root)])
    assert shown.exit_code == 0 and "calls reproduced" in shown.output and "awaiting_review" in shown.output
    missing = CliRunner().invoke(app, ["promote", "show", "draft-nope", "--drafts-dir", str(store.root)])
    assert missing.exit_code == 1 and "no draft" in missing.output
    bad = CliRunner().invoke(app, ["promote", "show", "../etc", "--drafts-dir", str(store.root)])
    assert bad.exit_code == 1 and "invalid key" in bad.output
