"""Schema-driven redaction finds PHI wherever pydantic puts it: nested, in lists, dicts, unions, cycles."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from bridge.phi.plan import apply_plan, plan_for, tokenize_leaves
from schemas.phi import phi_field
from tests.bridge.phi.phi_models import (
    AliasedArgs,
    ClaimPayload,
    LookupArgs,
    NoPhi,
    TreeNode,
    claim_payload,
)


def fake_token(value: Any) -> str:
    return f"T({value})" if not isinstance(value, dict) else "T(obj)"


def redact(model: type[BaseModel], data: dict[str, Any]) -> Any:
    plan = plan_for(model)
    return data if plan is None else apply_plan(plan, data, fake_token)


def test_top_level_phi_fields_are_tokenised_and_the_rest_kept() -> None:
    assert redact(LookupArgs, {"claim_id": "CLM-1", "member_id": "MBR-1"}) == {
        "claim_id": "CLM-1",
        "member_id": "T(MBR-1)",
    }


def test_nested_models_lists_dicts_and_optionals_are_walked() -> None:
    out = redact(ClaimPayload, claim_payload())
    patient = out["patient"]
    assert patient["name"] == "T(Ada Lovelace)" and patient["birth_year"] == "T(1815)"
    assert patient["plan"] == "HMO"
    assert patient["address"] == {"street": "T(12 Crescent Rd)", "city": "London", "zip_code": "T(90210)"}
    assert out["dependants"][0]["member_id"] == "T(MBR-0077)"
    assert out["contacts"]["home"]["street"] == "T(12 Crescent Rd)"
    assert (out["claim_id"], out["amount"], out["denial_codes"]) == ("CLM-1", 125.5, ["CO-97"])


def test_a_phi_field_holding_a_model_is_tokenised_whole() -> None:
    assert redact(ClaimPayload, claim_payload())["guarantor"] == "T(obj)"


def test_none_in_an_optional_phi_field_stays_none() -> None:
    data = {**claim_payload(), "guarantor": None}
    data["patient"] = {**data["patient"], "address": None}  # type: ignore[dict-item]
    out = redact(ClaimPayload, data)
    assert out["guarantor"] is None and out["patient"]["address"] is None


def test_recursive_models_are_redacted_at_every_depth() -> None:
    tree = {"label": "a", "children": [{"label": "b", "children": [{"label": "c", "children": []}]}]}
    out = redact(TreeNode, tree)
    assert out == {
        "label": "T(a)",
        "children": [{"label": "T(b)", "children": [{"label": "T(c)", "children": []}]}],
    }


def test_json_that_uses_aliases_is_redacted_under_the_alias() -> None:
    assert redact(AliasedArgs, {"memberId": "MBR-1", "claimId": "CLM-1"}) == {
        "memberId": "T(MBR-1)",
        "claimId": "CLM-1",
    }


def test_a_model_without_phi_keeps_its_declared_fields_and_tokenises_undeclared_ones() -> None:
    out = redact(NoPhi, {"claim_id": "CLM-1", "status": "denied", "ssn": "123-45-6789"})
    assert out == {"claim_id": "CLM-1", "status": "denied", "ssn": "T(123-45-6789)"}


class OpenBag(BaseModel):
    tags: dict[str, str]


def test_an_object_declared_open_keeps_undeclared_keys_and_a_model_without_objects_has_no_plan() -> None:
    assert redact(OpenBag, {"tags": {"colour": "blue"}}) == {"tags": {"colour": "blue"}}
    assert plan_for(OpenBag) is not None  # OpenBag itself is closed: its own undeclared keys go
    assert redact(OpenBag, {"tags": {}, "note": "x"})["note"] == "T(x)"


class Card(BaseModel):
    kind: str
    number: str = phi_field(description="Card number.")


class Cheque(BaseModel):
    kind: str
    number: str


class Payment(BaseModel):
    method: Card | Cheque
    methods: list[Card | Cheque] = []


def test_unions_redact_a_field_that_any_branch_marks_as_phi() -> None:
    out = redact(
        Payment,
        {"method": {"kind": "cheque", "number": "000123"}, "methods": [{"kind": "card", "number": "4111"}]},
    )
    # Which branch the data took is not knowable from JSON alone: over-redaction is the safe side.
    assert out["method"]["number"] == "T(000123)" and out["method"]["kind"] == "cheque"
    assert out["methods"][0]["number"] == "T(4111)"


def test_undeclared_keys_fail_closed_every_leaf_tokenised_and_an_odd_key_too() -> None:
    out = redact(LookupArgs, {"member_id": "M", "extra": {"dob": "1958-03-12", "n": [1]}, "Maria Lopez": "x"})
    assert out["extra"] == {"dob": "T(1958-03-12)", "n": ["T(1)"]}
    assert out["T(Maria Lopez)"] == "T(x)" and "Maria Lopez" not in out


def test_data_without_a_model_can_be_tokenised_leaf_by_leaf() -> None:
    data = {"a": "x", "b": [1, {"c": True}], "d": None}
    assert tokenize_leaves(data, fake_token) == {"a": "T(x)", "b": ["T(1)", {"c": "T(True)"}], "d": None}
