"""Addresses outside the US are found in the shapes their countries write them; codes are not."""

from __future__ import annotations

import pytest

from bridge.phi.patterns import find_spans
from bridge.phi.places import find_place_spans


def _covered(text: str, value: str) -> bool:
    start = text.index(value)
    return any(s <= start and start + len(value) <= e for s, e, _ in find_spans(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("moved to Kastanienallee 41, 10435 Berlin last spring", "Kastanienallee 41, 10435 Berlin"),
        ("lives at Avenida de la Constitución 12, Sevilla", "Avenida de la Constitución 12"),
        ("mail to 8 Via Garibaldi, 20121 Milano", "8 Via Garibaldi, 20121 Milano"),
        ("statement sent to Apartment 4, 19 Harbour Crescent, Cork", "Apartment 4, 19 Harbour Crescent"),
        ("address Victoria Rd 7, Wellington 6011 (temp)", "Victoria Rd 7, Wellington 6011"),
        ("care of 22 Kelvin Grove, Glasgow G12 8LF", "22 Kelvin Grove, Glasgow G12 8LF"),
        ("forwarding: Halifax NS B3H 4R2", "Halifax NS B3H 4R2"),
        ("PO: RR 4 Box 118, Ozark", "RR 4 Box 118"),
        ("NK1 addr 9 Elm St^^BOISE^ID^83702|", "BOISE^ID^83702"),
        ("2210 Oak Ave. North, Mpls 55411 on file", "2210 Oak Ave. North, Mpls 55411"),
    ],
)
def test_an_address_in_its_countrys_shape_is_found_whole(text: str, value: str) -> None:
    assert _covered(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "Place of Service 11, line 2 of 3; Row 18 of the workbook",
        "CPT 99213 x 2, HCPCS G0438, ICD-10 E11.9 and Z79.4",
        "rate 6.25% on 48 months; DSCR 1.31x, LTV 72%",
        "Section 4 Box 12 of the UB-04 form",
    ],
)
def test_codes_and_counts_are_not_addresses(text: str) -> None:
    assert find_place_spans(text) == []
