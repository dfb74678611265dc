"""Free text fails closed: PHI the episode has shown, and PHI with a known shape, never reaches an
event through instructions, model text, error messages, reasons, notes, final messages or refs."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from bridge.capture import SqliteOutbox
from bridge.phi import OPERATOR_ROLE, PhiVault
from bridge.recording import EpisodeRecorder, record_outcome
from schemas import SideEffect, ToolCall, ToolOutcome, ToolResult, WorkItem
from schemas.events import ModelResponded, OutcomeObserved, PolicyRef
from schemas.tools import ToolError
from tests.bridge.conftest import SOURCE
from tests.bridge.phi.phi_models import LookupArgs, LookupResult

MakeRecorder = Callable[..., EpisodeRecorder]
NAME, MEMBER, SSN, PHONE, EMAIL, DOB = (
    "Maria Lopez", "BLU448812301", "123-45-6789", "(217) 555-0143", "maria.lopez@example.com", "03/12/1958",
)  # fmt: skip
RAW = (NAME, MEMBER, SSN, PHONE, EMAIL, DOB, "Lopez", "blu-4488-1230-1", "217 555 0143")


def _record(recorder: EpisodeRecorder) -> None:
    item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1", payload={"claim_id": "CLM-1"},
                    instructions=f"Call the member at {PHONE} (SSN {SSN}) before appealing.")  # fmt: skip
    recorder.started(item, payload_model=None, policy=PolicyRef(model="m"), tools=["lookup"], tools_hash="h",
                     system_prompt_hash="p", max_steps=5, max_seconds=60)  # fmt: skip
    call = ToolCall(call_id="c1", name="lookup", arguments={"claim_id": "CLM-1", "member_id": MEMBER,
                                                             "note": f"for {EMAIL}"})  # fmt: skip
    recorder.model_responded(
        ModelResponded(turn=0, content=f"Looking up member {MEMBER}", tool_calls=(call,))
    )
    recorder.tool_called(call, SideEffect.READ, LookupArgs)
    result = {"claim_id": "CLM-1", "status": "denied", "patient_name": NAME, "ssn_last4": None}
    recorder.tool_returned(ToolResult(call_id="c1", name="lookup", outcome=ToolOutcome.OK, result=result),
                           LookupResult)  # fmt: skip
    error = ToolError(kind="domain", message=f"member blu-4488-1230-1 ({NAME.upper()}) not eligible on {DOB}")
    recorder.tool_failed(ToolResult(call_id="c2", name="lookup", outcome=ToolOutcome.FAILED, error=error))
    recorder.escalated("Ms. Lopez disputes; phone 217 555 0143", trigger="policy",
                       recommendation=f"write to {EMAIL}")  # fmt: skip
    recorder.human_intervened("ana", "specialist", "annotate", note=f"spoke to {NAME}, DOB {DOB}")
    recorder.ended("escalated", steps=2, tool_calls=1, duration_ms=5.0, final_message=f"{NAME} handed over")


def test_no_raw_phi_reaches_the_outbox_through_any_free_text_field(
    make_recorder: MakeRecorder, outbox: SqliteOutbox, vault: PhiVault
) -> None:
    recorder = make_recorder("ep-1", outbox)
    _record(recorder)
    outcome = OutcomeObserved(kind="paid", item_id="CLM-1", observed_at=datetime(2026, 1, 2, tzinfo=UTC),
                              external_ref=f"ERA for {SSN}")  # fmt: skip
    record_outcome(outbox, "ep-1", outcome, redactor=recorder._redactor, source=SOURCE)
    stored = json.dumps(outbox.events("ep-1"))
    leaked = [value for value in RAW if value.lower() in stored.lower()]
    assert leaked == []
    assert "CLM-1" in stored and "before appealing" in stored  # what is not PHI stays readable
    [escalated] = [e for e in outbox.events("ep-1") if e["type"] == "loopline.escalated.v1"]
    token = escalated["data"]["reason"].split()[1]  # "Ms. <token> disputes"
    assert token.startswith("phi_") and vault.reveal(token, OPERATOR_ROLE) == "Lopez"


def test_the_same_name_in_a_field_and_in_free_text_gets_the_same_token(
    make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    recorder = make_recorder("ep-2", outbox)
    _record(recorder)
    events = outbox.events("ep-2")
    field_token = events[3]["data"]["result"]["patient_name"]
    assert events[-1]["data"]["final_message"] == f"{field_token} handed over"
