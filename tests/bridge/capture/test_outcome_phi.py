"""An outcome arrives long after its episode: its free text is still scrubbed of the PHI the episode
showed, rebuilt from the episode's events (in the outbox, or archived) and the vault."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from bridge.capture import CaptureService
from schemas.events import OutcomeObserved
from tests.bridge.capture.test_capture_service import config
from tests.bridge.recording.episodes import ARGS_MODELS, record_episode

REF = "ERA 88123 for Ada Lovelace (ADA LOVELACE)"


def _outcome() -> OutcomeObserved:
    return OutcomeObserved(
        kind="paid", item_id="CLM-1", observed_at=datetime(2026, 2, 1, tzinfo=UTC), external_ref=REF
    )


def _ref(service: CaptureService) -> str:
    return str(service.outbox.events("ep-1")[-1]["data"]["external_ref"])


def test_an_outcome_names_no_patient_the_episode_showed(tmp_path: Path) -> None:
    with CaptureService.open(config(tmp_path)) as service:
        record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        service.record_outcome("ep-1", _outcome())
        ref = _ref(service)
    assert "lovelace" not in ref.lower() and ref.startswith("ERA 88123 for phi_")


def test_once_the_outbox_is_pruned_the_archived_events_tell_what_the_episode_showed(tmp_path: Path) -> None:
    with CaptureService.open(config(tmp_path)) as service:
        record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        archived = service.outbox.events("ep-1")
        with sqlite3.connect(tmp_path / "outbox.db") as db:  # the relay prunes delivered rows but the head
            db.execute("DELETE FROM outbox WHERE seq < (SELECT max(seq) FROM outbox)")
        assert "phi_" not in json.dumps(service.outbox.events("ep-1"))  # the head alone knows no PHI
        service.record_outcome("ep-1", _outcome(), history=archived)
        ref = _ref(service)
    assert "lovelace" not in ref.lower()
