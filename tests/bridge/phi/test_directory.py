"""The tenant's PHI directory: names, ids and dates found again in the spellings people write."""

from __future__ import annotations

import pytest

from bridge.phi.directory import PhiDirectory, date_digit_forms
from bridge.phi.policy import default_policy


def found(directory: PhiDirectory, text: str) -> set[str]:
    return {text[s:e] for s, e, _ in directory.spans(text)}


@pytest.fixture
def directory() -> PhiDirectory:
    known = PhiDirectory(default_policy().stopwords)
    known.learn({"first": "Aisha", "last": "Khan", "birth": "1975-11-02", "member": "ACM-100234"})
    known.learn({"phone": "(312) 555-0198", "street": "41 Larkspur Road", "city": "Peoria", "zip": "61602"})
    return known


@pytest.mark.parametrize(
    ("text", "hits"),
    [
        ("KHAN, AISHA called", {"KHAN", "AISHA"}),
        ("see A. Khan today", {"A. Khan"}),
        ("filed by Khan A. yesterday", {"Khan A."}),
        ("queue aisha_khan", {"aisha", "khan"}),
        ("member acm100234 and ACM 100234", {"acm100234", "ACM 100234"}),
        ("born 1975/11/02 or 11/02/1975 or 19751102", {"1975/11/02", "11/02/1975", "19751102"}),
        ("call 312.555.0198", {"312.555.0198"}),
        ("mail to Peoria", {"Peoria"}),
    ],
)
def test_a_learned_value_is_found_in_any_case_order_punctuation_and_initials(
    directory: PhiDirectory, text: str, hits: set[str]
) -> None:
    assert found(directory, text) == hits


def test_codes_stopwords_short_zips_and_unrelated_words_are_not_matched(directory: PhiDirectory) -> None:
    text = "CLM-1001 CO-16 on the Road to Khanh for 61602 units, CPT 99213, $100,234 billed"
    assert found(directory, text) == set()  # a five-digit value alone is not learned


def test_learning_grows_the_generation_only_for_new_values() -> None:
    directory = PhiDirectory()
    directory.learn("Okafor")
    generation = directory.generation
    directory.learn(["Okafor"])
    assert directory.generation == generation
    directory.learn("Nwosu")
    assert directory.generation == generation + 1 and directory.hit("NWOSU")


def test_an_iso_date_has_its_digit_forms_and_other_text_has_none() -> None:
    assert {"19751102", "11021975", "02111975", "1121975", "2111975", "110275"} == set(
        date_digit_forms("1975-11-02")
    )
    assert date_digit_forms("not a date") == []


def test_a_phi_marked_document_does_not_make_its_words_phi() -> None:
    directory = PhiDirectory()
    directory.learn("Letter of medical necessity for the operative procedure")
    assert not directory.hit("not_medically_necessary medical necessity")
