"""Numbers, dates and names read out in words are found; counts, amounts and periods are not."""

from __future__ import annotations

import pytest

from bridge.phi.spoken import find_spoken_spans


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_spoken_spans(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "caller read her member number as seven seven oh two, one one eight nine.",
            "seven seven oh two, one one eight nine",
        ),
        (
            "his phone is six oh eight, five five five, zero one three one",
            "six oh eight, five five five, zero one three one",
        ),
        ("born two two eighty-one, she said", "two two eighty-one"),
        ("birthday March third, fifty-four per the daughter", "March third, fifty-four"),
        ("DOB given as Oct twenty-second, nineteen forty", "Oct twenty-second, nineteen forty"),
        ("geboren am 14 März 1961 in Graz", "14 März 1961"),
        ("née le 2 février 1977", "2 février 1977"),
        ("surname spelled K-O-W-A-L as in kilo", "K-O-W-A-L"),
    ],
)
def test_a_number_date_or_name_read_out_is_found(text: str, value: str) -> None:
    assert value in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "one or two visits in ninety days; three hundred fifty dollars due",
        "resubmit within sixty days, then a second appeal in thirty",
        "two of the three claims paid; four remain",
        "CO-45 and PR-2 on line one",
        "D-U-N-S 04-812-3307 and the A-B-C rating",
    ],
)
def test_counts_periods_and_amounts_in_words_are_kept(text: str) -> None:
    assert _found(text) == []
