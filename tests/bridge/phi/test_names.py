"""The name lexicon: names with nothing around them are found, everyday capitalised words are not."""

from __future__ import annotations

import pytest

from bridge.phi.names import find_name_spans, lexicon
from bridge.phi.patterns import find_spans


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_name_spans(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Wanjiru Kamau vs the other chart: same pt", "Wanjiru Kamau"),
        ("Kim Soo-jin, family name first, called twice", "Kim Soo-jin"),
        ("name on the card is RENEE DUBOIS GAGNON; fine", "RENEE DUBOIS GAGNON"),
        ("Łukasz Wiśniewski — comes through the 837 folded", "Łukasz Wiśniewski"),
        ("ptname:KOSTOPOULOS/ANASTASIA dob:x", "KOSTOPOULOS/ANASTASIA"),
        ("self pay pt marcus dellavecchia called re estimate", "marcus dellavecchia"),
        ("Mohammed bin Rashid Al-Hashimi pays by wire", "Mohammed bin Rashid Al-Hashimi"),
        ("officers: WATANABE Kenji (COO) signed", "WATANABE Kenji"),
        ("ORU note pt NGUYEN^THANH MRN 5", "NGUYEN^THANH"),
        ("two pts (Elena Rossi & Elena M. Rossi) share a DOB", "Elena Rossi"),
    ],
)
def test_a_name_with_no_cue_is_found(text: str, name: str) -> None:
    assert name in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "May we bill the secondary? Will Review in June; Grant Page and Mark Rose are art terms.",
        "Blue Cross Blue Shield of Texas and Medicare Advantage; Prior Authorization required.",
        "Wells Fargo Bank, San Diego, Fort Worth; the Medicare Physician Fee Schedule for 2026.",
        "Called Molina about the claim; Kaiser Permanente Northern California denied it.",
        "Loan facility ID FAC-2025-118 at Fifth Third Bank, amortization 7 years.",
    ],
)
def test_everyday_capitalised_words_are_kept(text: str) -> None:
    assert _found(text) == []


def test_the_scrubber_finds_the_name_again_alone() -> None:
    text = "Wanjiru Kamau vs Wanjiru Kamau-Ndungu; Wanjiru called back."
    covered = {text[s:e] for s, e, kind in find_spans(text) if kind == "name"}
    assert {"Wanjiru Kamau", "Wanjiru Kamau-Ndungu", "Wanjiru"} <= covered


def test_the_lexicon_is_large_and_holds_folded_forms() -> None:
    lex = lexicon()
    assert len(lex.names) > 40_000
    assert {"lukasz", "łukasz", "wanjiru", "kamau"} <= lex.names
    assert lex.kind("May") == "weak" and lex.kind("Kamau") == "strong" and lex.kind("Schedule") == "common"


def test_the_committed_lexicon_is_what_the_generator_writes_from_faker() -> None:
    import gzip
    import json

    from loopline.devtools.phi_names import OUT, build

    assert json.loads(gzip.decompress(OUT.read_bytes())) == build()
