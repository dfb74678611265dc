"""Blind arguments come from the payload, then earlier results, then the schema's types."""

from __future__ import annotations

from envs.adversarial.guess import guess_arguments
from envs.contract import Turn
from schemas.tasks import WorkItem
from schemas.tools import ToolCall, ToolOutcome, ToolResult

ITEM = WorkItem(
    domain="x", kind="k", item_id="C-1", instructions="work it",
    payload={"claim_id": "C-1", "billed_amount": 120.0, "worked_on": "2025-03-01"},
)  # fmt: skip
TOOL = {
    "type": "function",
    "function": {
        "name": "act",
        "parameters": {
            "type": "object",
            "$defs": {"Fix": {"type": "object", "properties": {"code": {"type": "string", "minLength": 5}}}},
            "properties": {
                "claim_id": {"type": "string"},
                "amount": {"type": "number"},
                "reason": {"type": "string", "enum": ["contractual", "other"]},
                "document_ids": {"type": "array", "items": {"type": "string"}},
                "service_date": {"type": "string", "format": "date"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "fix": {"$ref": "#/$defs/Fix"},
            },
        },
    },
}


def _turn(result: dict[str, object]) -> Turn:
    return Turn(
        call=ToolCall(call_id="1", name="list", arguments={}),
        result=ToolResult(call_id="1", name="list", outcome=ToolOutcome.OK, result=result),
    )


def test_arguments_come_from_the_payload_and_the_schema() -> None:
    args = guess_arguments(TOOL, ITEM, ())
    assert args["claim_id"] == "C-1" and args["amount"] == 120.0 and args["reason"] == "contractual"
    assert args["service_date"] == "2025-03-01" and args["note"] is None and args["document_ids"] == []
    assert isinstance(args["fix"], dict) and isinstance(args["fix"]["code"], str)


def test_ids_seen_in_earlier_results_are_reused() -> None:
    turns = (_turn({"documents": [{"document_id": "DOC-7", "kind": "letter"}]}),)
    assert guess_arguments(TOOL, ITEM, turns)["document_ids"] == ["DOC-7"]
