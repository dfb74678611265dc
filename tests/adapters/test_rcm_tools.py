"""The RCM tool definitions: strict OpenAI schemas, MCP definitions, descriptions, PHI marks, and
malformed arguments coming back as typed validation failures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from adapters.rcm import RCM_TOOLS, TOOL_LOGIC
from adapters.rcm.models import Claim, Coverage, Patient
from adapters.spec import ToolSpec
from schemas.phi import phi_fields
from schemas.tools import SideEffect, ToolOutcome, ToolResult

Call = Callable[..., ToolResult]
SPECS = {spec.name: spec for spec in RCM_TOOLS}
REQUIRED_TOOLS = {
    "get_remittance",
    "get_claim",
    "get_claim_status",
    "check_eligibility",
    "find_original_claim",
    "get_documents",
    "read_document",
    "submit_replacement_claim",
    "submit_appeal",
    "request_authorization",
    "bill_other_payer",
    "transfer_to_patient_responsibility",
    "post_write_off",
    "escalate_to_human",
}


def _objects(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_objects(item))
    return found


def test_every_brief_tool_exists_and_every_tool_has_logic() -> None:
    assert set(SPECS) >= REQUIRED_TOOLS
    assert set(SPECS) == set(TOOL_LOGIC)


def test_side_effects_are_declared_as_the_brief_says() -> None:
    assert SPECS["escalate_to_human"].side_effect is SideEffect.IRREVERSIBLE
    assert all(
        SPECS[n].side_effect is SideEffect.READ
        for n in SPECS
        if n.startswith(("get_", "check_", "find_", "read_"))
    )
    assert SPECS["post_write_off"].side_effect is SideEffect.WRITE


@pytest.mark.parametrize("spec", RCM_TOOLS, ids=lambda s: s.name)
def test_openai_schema_is_valid_strict_mode(spec: ToolSpec[Any, Any]) -> None:
    tool = spec.openai_tool()
    assert tool["function"]["strict"] is True and tool["function"]["name"] == spec.name
    objects = _objects(tool["function"]["parameters"])
    assert objects, "parameters must be an object schema"
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    for obj in objects:
        for prop in obj["properties"].values():
            assert "default" not in prop and "x-phi" not in prop


@pytest.mark.parametrize("spec", RCM_TOOLS, ids=lambda s: s.name)
def test_every_argument_field_has_a_description(spec: ToolSpec[Any, Any]) -> None:
    def check(model: type[BaseModel]) -> None:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            for arg in (*getattr(field.annotation, "__args__", ()), field.annotation):
                inner = getattr(arg, "__args__", (arg,))
                for candidate in inner:
                    if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                        check(candidate)

    check(spec.args_model)
    check(spec.result_model)


@pytest.mark.parametrize("spec", RCM_TOOLS, ids=lambda s: s.name)
def test_null_for_every_optional_argument_validates(spec: ToolSpec[Any, Any]) -> None:
    # Strict mode makes optional fields required-but-nullable: a model sending null must be accepted.
    schema = spec.openai_tool()["function"]["parameters"]
    for name, field in spec.args_model.model_fields.items():
        if not field.is_required():
            prop = schema["properties"][name]
            assert any(o.get("type") == "null" for o in prop.get("anyOf", [])), name
            assert field.default is None, f"{spec.name}.{name}: null must mean 'not given'"


@pytest.mark.parametrize("spec", RCM_TOOLS, ids=lambda s: s.name)
def test_mcp_definition_carries_schemas_and_hints(spec: ToolSpec[Any, Any]) -> None:
    tool = spec.mcp_tool()
    assert tool["name"] == spec.name and tool["description"]
    assert tool["inputSchema"]["type"] == "object" and tool["outputSchema"]["type"] == "object"
    assert tool["annotations"]["readOnlyHint"] is (spec.side_effect is SideEffect.READ)


def test_patient_identifiers_are_marked_phi() -> None:
    assert {"first_name", "last_name", "birth_date", "address"} <= phi_fields(Patient)
    assert {"member_id", "patient_first_name", "patient_birth_date", "subscriber_last_name"} <= phi_fields(
        Claim
    )
    assert {"member_id", "subscriber_birth_date"} <= phi_fields(Coverage)
    schema = SPECS["check_eligibility"].mcp_tool()["inputSchema"]
    assert schema["properties"]["member_id"]["x-phi"] is True


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("get_claim", {}, "claim_id"),
        ("get_claim", {"claim_id": "CLM-1001", "extra": 1}, "extra"),
        ("post_write_off", {"claim_id": "CLM-1018", "amount": -5, "reason_code": "contractual"}, "amount"),
        ("post_write_off", {"claim_id": "CLM-1018", "amount": 5, "reason_code": "because"}, "reason_code"),
        ("check_eligibility", {"service_date": "2025-06-01"}, "(arguments)"),
        ("check_eligibility", {"member_id": "X", "service_date": "June 1st"}, "service_date"),
        (
            "submit_appeal",
            {"claim_id": "CLM-1014", "basis": "other", "reason": "short", "attachment_document_ids": []},
            "reason",
        ),
        (
            "submit_replacement_claim",
            {
                "claim_id": "CLM-1001",
                "original_claim_control_number": "X",
                "corrections": {"rendering_npi": "12"},
            },
            "corrections.rendering_npi",
        ),
        (
            "escalate_to_human",
            {
                "claim_id": "CLM-1021",
                "queue": "ceo",
                "recommended_action": "review",
                "reason": "provider not certified",
            },
            "queue",
        ),
    ],
)
def test_malformed_arguments_come_back_as_validation_failures(
    call: Call, tool: str, arguments: dict[str, Any], field: str
) -> None:
    result = call(tool, **arguments)
    assert result.outcome is ToolOutcome.FAILED and result.error is not None
    assert result.error.kind == "validation"
    assert field in [e["field"] for e in result.error.details["errors"]]
