"""An address's country after its town, a box or a slip before it, an Irish Eircode, a flat in
another language, a name's Welsh `ap`, a passport's machine-readable name, and a mailbox read out
with any host are found."""

from __future__ import annotations

import pytest

from bridge.phi.patterns import find_spans


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("mail to 12 Elm St, Ottawa ON K1A 0B1, Canada today", "12 Elm St, Ottawa ON K1A 0B1, Canada"),
        (
            "new addr Calle Mayor 8, piso 3, 28013 Madrid, España ok",
            "Calle Mayor 8, piso 3, 28013 Madrid, España",
        ),
        ("pt Owain ap Rhodri called", "Owain ap Rhodri"),
        ('MRZ "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<"', "ERIKSSON<<ANNA<MARIA"),
        ("write to jbloggs at fastmailer dot com please", "jbloggs at fastmailer dot com"),
        ("lives 77 Elm Av, Sedona AZ 86336", "77 Elm Av, Sedona AZ 86336"),
        ("mail to Box 12, 40 Oak St, Reno NV 89501 now", "Box 12, 40 Oak St, Reno NV 89501"),
        ("moored at Slip B-7, 12 Dock Rd, Mystic CT 06355", "Slip B-7, 12 Dock Rd, Mystic CT 06355"),
        ("her address is 3 Quay Rd, T12 X7PK per letter", "3 Quay Rd, T12 X7PK"),
    ],
)
def test_the_whole_value_is_found(text: str, value: str) -> None:
    start = text.index(value)
    end = start + len(value)
    covered = [False] * len(text)
    for s, e, _ in find_spans(text):
        covered[s:e] = [True] * (e - s)
    assert all(covered[i] for i in range(start, end) if text[i].isalnum())


@pytest.mark.parametrize(
    "text", ["meet at noon, dot the i's", "claim CO-45 << see note", "Suite 100 at the payer"]
)
def test_ordinary_text_keeps_its_words(text: str) -> None:
    assert find_spans(text) == []
