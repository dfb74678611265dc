"""Tool calls are checked against the request's tools: valid ones pass as written, invalid ones
are reported with the reason and never repaired."""

from __future__ import annotations

from typing import Any

from engine import parse_arguments
from training.serve.toolcheck import check_calls

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_claim",
            "parameters": {
                "type": "object",
                "properties": {"claim_id": {"type": "string"}},
                "required": ["claim_id"],
                "additionalProperties": False,
            },
        },
    }
]


def test_a_call_that_meets_its_schema_is_valid_and_kept_verbatim() -> None:
    call = parse_arguments("call-1", "get_claim", '{"claim_id": "CLM-1"}')
    checked = check_calls([call], TOOLS)
    assert checked.valid == (call,) and checked.invalid == ()


def test_a_call_to_a_tool_not_offered_is_reported() -> None:
    checked = check_calls([parse_arguments("call-1", "pay_everything", "{}")], TOOLS)
    assert checked.valid == () and "not one of the offered tools" in checked.invalid[0].error


def test_arguments_that_are_not_json_are_reported_not_repaired() -> None:
    checked = check_calls([parse_arguments("call-1", "get_claim", '{"claim_id": CLM-1')], TOOLS)
    (bad,) = checked.invalid
    assert "not JSON" in bad.error and bad.as_json()["function"]["arguments"] == '{"claim_id": CLM-1'


def test_arguments_that_break_the_schema_are_reported_with_the_rule() -> None:
    checked = check_calls([parse_arguments("call-1", "get_claim", '{"claim": "CLM-1"}')], TOOLS)
    assert "required" in checked.invalid[0].error


def test_a_call_without_a_name_is_reported() -> None:
    checked = check_calls([parse_arguments("call-1", "", "<tool_call> garbled")], TOOLS)
    assert "without a tool name" in checked.invalid[0].error


def test_only_the_broken_call_of_two_is_reported() -> None:
    good = parse_arguments("call-1", "get_claim", '{"claim_id": "CLM-1"}')
    bad = parse_arguments("call-2", "get_claim", "[]")
    checked = check_calls([good, bad], TOOLS)
    assert checked.valid == (good,) and "not an object" in checked.invalid[0].error


def test_a_nullable_argument_left_out_is_no_reason_to_refuse_a_strict_call() -> None:
    strict = [
        {
            "type": "function",
            "function": {
                "name": "submit",
                "strict": True,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "claim_id": {"type": "string"},
                        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                        "lines": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"n": {"type": "integer"}, "mod": {"type": ["string", "null"]}},
                                "required": ["n", "mod"],
                                "additionalProperties": False,
                            },
                        },
                    },
                    "required": ["claim_id", "note", "lines"],
                    "additionalProperties": False,
                },
            },
        }
    ]
    ok = parse_arguments("call-1", "submit", '{"claim_id": "C1", "lines": [{"n": 2}]}')
    assert check_calls([ok], strict).valid == (ok,)
    missing = parse_arguments("call-2", "submit", '{"note": null, "lines": []}')
    assert "claim_id" in check_calls([missing], strict).invalid[0].error
