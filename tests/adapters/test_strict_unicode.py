"""Lone surrogate escapes are found in raw JSON bodies; error answers are made fit for strict JSON."""

from __future__ import annotations

import json
import math

import pytest

from adapters.json_safe import json_safe
from adapters.strict_unicode import has_lone_surrogate


@pytest.mark.parametrize(
    ("body", "lone"),
    [
        (rb'{"a": "\ud800"}', True),
        (rb'{"a": "x\uDFFFy"}', True),
        (rb'{"a": "\ud83d\ud83d\ude00"}', True),
        (rb'{"a": "\\\ud800"}', True),
        (rb'{"a": "\ud83d\ude00"}', False),
        (rb'{"a": "\\ud800"}', False),
        (rb'{"a": "\u00e9 caf\u00e9"}', False),
        (json.dumps({"emoji": "\U0001f600"}).encode(), False),
    ],
)
def test_a_body_has_a_lone_surrogate_only_when_an_escape_is_not_half_of_a_pair(
    body: bytes, lone: bool
) -> None:
    assert has_lone_surrogate(body) is lone


def test_error_details_lose_their_non_finite_numbers_and_lone_surrogates() -> None:
    raw = {"input": [math.nan, math.inf, -math.inf, 1.5, "ok\ud800"], "loc": ("body", "x")}
    safe = json_safe(raw)
    assert safe == {"input": ["nan", "inf", "-inf", 1.5, "ok?"], "loc": ["body", "x"]}
    json.dumps(safe, allow_nan=False).encode()  # strict JSON, valid UTF-8
