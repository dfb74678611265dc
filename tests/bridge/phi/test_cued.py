"""Names and handles given away by a cue next to them are found; common words after a cue are not."""

from __future__ import annotations

import pytest

from bridge.phi.cued import find_cued_name_spans


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_cued_name_spans(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("collector: mr. delacroix-byrne called back", "delacroix-byrne"),
        ("spoke with ms whitcombe about the plan", "whitcombe"),
        ("Thanks for your help. - Ingrid K.", "Ingrid K."),
        ("portal username hbrandvold locked", "hbrandvold"),
        ("login: m.ortega_71 reset twice", "m.ortega_71"),
    ],
)
def test_a_name_or_handle_after_its_cue_is_found(text: str, value: str) -> None:
    assert value in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "login page failed; username and password reset",
        "Medicare Part B. Vitamin D. deficiency",
        "ms word file attached; mr numbers match",
        "Part A. and Part B. both apply",
    ],
)
def test_common_words_after_a_cue_are_kept(text: str) -> None:
    assert _found(text) == []
