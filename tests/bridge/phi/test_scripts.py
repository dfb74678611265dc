"""Names written in their own script are found; Greek letters used as symbols are not."""

from __future__ import annotations

import pytest

from bridge.phi.scripts import find_script_spans


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_script_spans(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("signed Петрова Анна (Anna Petrova)", "Петрова Анна"),
        ("guarantor 王小明 co-signed", "王小明"),
        ("daughter 박지민 interprets", "박지민"),
        ("surname on ID: Παπαδάκης", "Παπαδάκης"),
        ("name in Arabic: محمد الحسن", "محمد الحسن"),
        ("katakana ヤマダ・タロウ on the card", "ヤマダ・タロウ"),
    ],
)
def test_a_run_of_another_scripts_letters_is_found(text: str, value: str) -> None:
    assert value in _found(text)


def test_single_greek_letters_used_as_symbols_are_kept() -> None:
    assert _found("β-blocker 50 µg, Δ 3 points; α = 0.05 → escalate") == []  # noqa: RUF001
