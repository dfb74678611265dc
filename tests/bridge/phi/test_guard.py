"""The PHI guard: every string of every recorded event, key and value, is a literal, a clean
identifier or code of its shape, a tool the domain offers, or scrubbed; anything else is tokenised."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bridge.phi import OPERATOR_ROLE, KnownPhi, PhiTokenizer, PhiVault, Redactor
from bridge.phi.guard import EventGuard, PhiGuardError
from bridge.phi.policy import FieldPolicy, FieldPolicyError, default_policy
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from schemas import SideEffect, ToolCall, ToolOutcome, ToolResult, WorkItem
from schemas.events import (
    EpisodeInterrupted,
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    PolicyRef,
    ToolCalled,
    ToolReturned,
)
from schemas.registry import DEFAULT_REGISTRY
from tests.bridge.conftest import SOURCE, TENANT
from tests.bridge.phi.phi_models import LookupArgs, LookupResult, WorldState

RECORDED = (
    "loopline.episode.started.v2", "loopline.model.responded.v1", "loopline.tool.called.v1",
    "loopline.tool.returned.v1", "loopline.tool.failed.v1", "loopline.escalated.v1",
    "loopline.human.intervened.v1", "loopline.episode.ended.v1", "loopline.episode.interrupted.v1",
    "loopline.outcome.observed.v1",
)  # fmt: skip
NAME = "Aisha Khan"
SPELLINGS = ("KHAN, AISHA", "A. Khan", "aisha_khan", "aisha.khan", "Khan")


@pytest.fixture
def guard(tokenizer: PhiTokenizer) -> EventGuard:
    tokenizer.directory(TENANT).learn({"first": "Aisha", "last": "Khan", "member": "ACM-100234"})
    return EventGuard(tokenizer, TENANT, tools=frozenset({"get_claim", "close_claim"}))


def _json(data: Any) -> str:
    return json.dumps(data.model_dump(mode="json")).lower()


def _string_paths(
    schema: dict[str, Any], defs: dict[str, Any], path: str, seen: frozenset[str]
) -> Iterator[str]:
    """Every path of the schema that can hold a string, with `*` for list items; a free-form
    object (`dict[str, Any]`) is one path."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            yield from _string_paths(defs[name], defs, path, seen | {name})
        return
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key, ()):
            yield from _string_paths(branch, defs, path, seen)
    if schema.get("type") == "object" and "properties" not in schema:
        yield path
    for name, sub in (schema.get("properties") or {}).items():
        yield from _string_paths(sub, defs, f"{path}.{name}" if path else name, seen)
    if isinstance(schema.get("items"), dict):
        yield from _string_paths(schema["items"], defs, f"{path}.*", seen)
    if schema.get("type") == "string" or "enum" in schema or "const" in schema:
        yield path


@pytest.mark.parametrize("event_type", RECORDED)
def test_every_string_path_of_every_recorded_event_has_a_policy_line(event_type: str) -> None:
    rules = default_policy().rules(event_type)
    schema = DEFAULT_REGISTRY.model_for(event_type).model_json_schema(mode="serialization")
    paths = set(_string_paths(schema, schema.get("$defs", {}), "", frozenset()))
    data_roots = {p for p, rule in rules.items() if rule.kind == "data"}
    uncovered = {
        p for p in paths if p not in rules and not any(p == d or p.startswith(d + ".") for d in data_roots)
    }
    assert paths and uncovered == set()
    assert set(rules) - paths == set()  # no line for a field that does not exist


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_known_patient_in_any_spelling_leaves_no_string_field_raw(guard: EventGuard, spelling: str) -> None:
    slug = spelling.lower().replace(", ", "_").replace(". ", "_")
    events = [
        EpisodeStarted(
            work_item=WorkItem(domain="rcm", kind="denial", item_id=slug, instructions=f"{spelling} called",
                               payload={slug: spelling}),
            policy=PolicyRef(model=f"model-{slug}"), tools=("get_claim", f"get_{slug}"), tools_hash="ab" * 8,
            system_prompt_hash="cd" * 8, max_steps=1, max_seconds=1.0,
        ),
        ModelResponded(turn=0, content=spelling, finish_reason=slug,
                       tool_calls=(ToolCall(call_id=f"c-{slug}", name=slug, arguments={slug: 1}),)),
        ToolCalled(call=ToolCall(call_id="c1", name="close_claim", arguments={"note": f"for {spelling}"})),
        ToolReturned(call_id="c1", name="get_claim", result={"rows": [{slug: spelling}]}),
        Escalated(reason=spelling, trigger="policy", queue=slug, recommendation=spelling),
        HumanIntervened(actor=slug, role=slug, action="annotate", note=spelling, payload={"k": spelling}),
        EpisodeInterrupted(reason=spelling, last_seq=1, last_event_type=slug, last_call_id=slug, last_tool=slug),
        OutcomeObserved(kind=slug, item_id=slug, observed_at=datetime(2026, 1, 1, tzinfo=UTC),
                        reason_codes=("CO-16", slug), external_ref=spelling, details={slug: spelling}),
    ]  # fmt: skip
    for event in events:
        guarded = _json(guard.guard(event, KnownPhi()))
        assert "khan" not in guarded and "aisha" not in guarded, (type(event).__name__, guarded)


def test_clean_identifiers_codes_tools_and_text_pass_unchanged(guard: EventGuard) -> None:
    events = [
        ToolCalled(call=ToolCall(call_id="call_0001", name="get_claim", arguments={"claim_id": "CLM-1001", "99213": 1})),
        Escalated(reason="CARC 197 with no auth on file", trigger="policy", queue="credentialing"),
        OutcomeObserved(kind="appeal_won", item_id="CLM-1001", observed_at=datetime(2026, 1, 1, tzinfo=UTC),
                        reason_codes=("CO-16", "N290", "MA130", "PR-2"), external_ref="ERA 8842"),
    ]  # fmt: skip
    for event in events:
        assert guard.guard(event) is event


def test_an_unknown_tool_is_tokenised_and_its_raw_name_is_in_the_vault(
    guard: EventGuard, vault: PhiVault
) -> None:
    event = ToolCalled(call=ToolCall(call_id="c1", name="delete_everything", arguments={}))
    guarded = guard.guard(event)
    assert isinstance(guarded, ToolCalled) and guarded.call.name.startswith("phi_")
    assert vault.reveal(guarded.call.name, OPERATOR_ROLE, tenant=TENANT) == "delete_everything"


def test_a_string_no_policy_line_names_is_tokenised(tokenizer: PhiTokenizer) -> None:
    lines = {"reason": "text", "trigger": "literal"}
    guard = EventGuard(
        tokenizer, TENANT, policy=FieldPolicy.parse({"events": {"loopline.escalated.v1": lines}})
    )
    guarded = guard.guard(Escalated(reason="why", trigger="policy", queue="supervisor"))
    assert isinstance(guarded, Escalated) and guarded.reason == "why" and guarded.queue.startswith("phi_")
    # A literal left without its line is tokenised too, and the event no longer fits: refused.
    strict = EventGuard(tokenizer, TENANT, policy=FieldPolicy.parse({"events": {}}))
    with pytest.raises(PhiGuardError, match="trigger"):
        strict.guard(Escalated(reason="why", trigger="policy"))


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        ({"events": {"t": {"a": "secret"}}}, "unknown class"),
        ({"events": {"t": {"a": "id:nope"}}}, "not in"),
        ({"shapes": {"s": "("}}, "not a regex"),
        ({"events": {"t": {"a": "text:slug"}}}, "takes no shape"),
    ],
)
def test_a_malformed_policy_is_refused_with_its_reason(doc: dict[str, Any], error: str) -> None:
    with pytest.raises(FieldPolicyError, match=error):
        FieldPolicy.parse(doc)


def test_the_shipped_policy_loads_from_the_package(tmp_path: Path) -> None:
    assert set(RECORDED) <= set(default_policy().events)
    (tmp_path / "bad.toml").write_text("[events\n")
    with pytest.raises(FieldPolicyError, match="TOML"):
        FieldPolicy.load(tmp_path / "bad.toml")


def test_the_recorder_scrubs_another_patients_name_from_a_write_tools_note_and_guards_the_subject(
    redactor: Redactor,
) -> None:
    sink = InMemoryEventSink()
    first = EpisodeRecorder(
        "ep-1", sink=sink, redactor=redactor, source=SOURCE, args_models={"lookup": LookupArgs}
    )
    result = {"claim_id": "CLM-1", "status": "denied", "patient_name": "Ingrid Johansson"}
    first.tool_returned(
        ToolResult(call_id="c1", name="lookup", outcome=ToolOutcome.OK, result=result), LookupResult
    )
    second = EpisodeRecorder(
        "ep-2", sink=sink, redactor=redactor, source=SOURCE, args_models={"lookup": LookupArgs}
    )
    item = WorkItem(
        domain="rcm", kind="denial", item_id="JOHANSSON-INGRID", instructions="INGRID JOHANSSON called"
    )
    started = second.started(item, payload_model=None, policy=PolicyRef(model="m"), tools=["lookup"],
                             tools_hash="h", system_prompt_hash="p", max_steps=5, max_seconds=60)  # fmt: skip
    call = ToolCall(
        call_id="c2", name="close_claim", arguments={"claim_id": "CLM-1", "note": "not Johansson, I."}
    )
    second.tool_called(call, SideEffect.WRITE, None)
    stored = json.dumps([e.model_dump(mode="json") for e in sink.events]).lower()
    assert "johansson" not in stored and "ingrid" not in stored
    assert started.subject == json.loads(started.model_dump_json())["data"]["work_item"]["item_id"]
    assert started.subject is not None and started.subject.startswith("phi_")


def test_a_patient_of_the_world_snapshot_is_scrubbed_from_the_instructions_before_any_lookup(
    redactor: Redactor,
) -> None:
    sink = InMemoryEventSink()
    recorder = EpisodeRecorder(
        "ep-w",
        sink=sink,
        redactor=redactor,
        source=SOURCE,
        snapshot_redact=redactor.snapshot_redactor(WorldState),
    )
    world = {"patients": {"p1": {"name": "Grace Hopper", "member_id": "MBR-0077", "birth_year": 1906}},
             "open_claims": ["CLM-9"]}  # fmt: skip
    item = WorkItem(
        domain="rcm", kind="denial", item_id="CLM-9", instructions="HOPPER, GRACE (mbr 0077) called"
    )
    recorder.started(item, payload_model=None, policy=PolicyRef(model="m"), tools=["lookup"], tools_hash="h",
                     system_prompt_hash="p", max_steps=5, max_seconds=60, world_snapshot=world)  # fmt: skip
    stored = json.dumps([e.model_dump(mode="json") for e in sink.events]).lower()
    assert "hopper" not in stored and "grace" not in stored and "CLM-9".lower() in stored


def test_a_bare_value_is_held_to_the_shapes_that_identify_wherever_they_stand(guard: EventGuard) -> None:
    result = {
        "owner_ssn": "401-22-7183", "contact": "r.osei@example.org", "cell": "(608) 555-0131",
        "nm1": "NM1*QC*1*OSEI*KOFI~", "service_date": "2026-03-02", "carc": "CO-45", "pcn": "BLUE25101600",
    }  # fmt: skip
    guarded = guard.guard(ToolReturned(call_id="c1", name="get_claim", result=result))
    assert isinstance(guarded, ToolReturned)
    raw = {k for k, v in guarded.result.items() if v == result[k]}
    assert raw == {"service_date", "carc", "pcn"}  # a date, a code, a control number stay bare
    assert guarded.result["nm1"].startswith("NM1*QC*1*phi_")


def test_a_value_under_a_key_that_names_a_phi_field_is_tokenised_whatever_its_shape(
    guard: EventGuard,
) -> None:
    result = {
        "dob": "1/2/03", "mrn": "HX-0044812", "patient_name": "søren k-h", "service_date": "1/2/03",
        "carc": "CO-45", "name_status": "ok",
    }  # fmt: skip
    guarded = guard.guard(ToolReturned(call_id="c1", name="get_claim", result=result))
    assert isinstance(guarded, ToolReturned)
    raw = {k for k, v in guarded.result.items() if v == result[k]}
    assert raw == {"service_date", "carc", "name_status"}


def test_a_value_under_a_key_that_names_a_persons_contact_address_id_or_name_is_tokenised(
    guard: EventGuard,
) -> None:
    result = {
        "home_zip": "53703", "mailing_postcode": "EH1 1YZ", "addr_line2": "Unit 9", "residence_city": "Leeds",
        "cell_phone": "0161 496 0000", "acct_no": "ZZ-3-8812", "member_id": "WQX71203388",
        "date_of_death": "2025-01-04", "cosigner_name": "Hal Ng", "passport_no": "Z1234567",
        "provider_city": "Omaha", "payer_name": "Acme Health", "tool_name": "get_claim",
        "billing_address": "1 Payer Plaza", "account_type": "checking", "claim_status": "denied",
    }  # fmt: skip
    guarded = guard.guard(ToolReturned(call_id="c1", name="get_claim", result=result))
    assert isinstance(guarded, ToolReturned)
    raw = {k for k, v in guarded.result.items() if v == result[k]}
    # a payer's or a provider's contact is not a person's; a type or a status is no value of one
    assert raw == {
        "provider_city",
        "payer_name",
        "tool_name",
        "billing_address",
        "account_type",
        "claim_status",
    }


def test_a_value_under_a_key_that_names_a_persons_handle_plate_serial_or_local_name_is_tokenised(
    guard: EventGuard,
) -> None:
    result = {
        "borrower_username": "kip_r", "owner_vehicle_plate": "WA 7QX114", "pump_serial_number": "GX7781",
        "spouse_name_local": "王芳", "refund_iban": "NL91ABNA0417164300", "plan_handle_type": "pooled",
        "login_attempts": "3",
    }  # fmt: skip
    guarded = guard.guard(ToolReturned(call_id="c1", name="get_claim", result=result))
    assert isinstance(guarded, ToolReturned)
    raw = {k for k, v in guarded.result.items() if v == result[k]}
    assert raw == {"plan_handle_type", "login_attempts"}
