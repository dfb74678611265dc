"""A name's nicknames and short forms are its variants; common words and months are not."""

from __future__ import annotations

import pytest

from bridge.phi.variants import name_variants


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("Margaret", "peggy"),
        ("Peggy", "margaret"),
        ("Francisco", "paco"),
        ("Oluwaseun", "seun"),
        ("Oluwaseun", "olu"),
        ("Adewale", "wale"),
        ("Nnamdi", "nnam"),
    ],
)
def test_a_nickname_or_a_short_form_is_a_variant(name: str, variant: str) -> None:
    assert variant in name_variants(name)


def test_months_common_words_and_short_names_are_not_cut() -> None:
    assert "mar" not in name_variants("Martina")
    assert "ann" not in name_variants("Ann")  # too short to cut
    assert "liam" in name_variants("William") and "bill" not in name_variants("William")
    assert "hill" not in name_variants("Churchill")
