"""The generic vocabulary scan: configured field names anywhere in JSON, case-insensitive."""

from __future__ import annotations

from bridge.detect.vocabulary import MAX_DEPTH, unknown_values

KNOWN = {"carc": frozenset({"16"}), "rarc": frozenset({"M51"})}


def test_scalars_and_lists_of_a_known_field_are_checked_and_other_fields_ignored() -> None:
    doc = {"Carc": 16, "rarc": ["M51", "N999"], "other": "X", "flag": {"carc": True}}
    assert list(unknown_values(doc, KNOWN)) == [("rarc", "N999", "$.rarc")]


def test_no_vocabulary_configured_finds_nothing() -> None:
    assert list(unknown_values({"carc": "999"}, {})) == []


def test_hostile_nesting_stops_at_a_depth_limit_instead_of_crashing() -> None:
    doc: dict[str, object] = {"carc": "1"}
    for _ in range(MAX_DEPTH + 50):
        doc = {"x": doc}
    assert list(unknown_values(doc, KNOWN)) == []
