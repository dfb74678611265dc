"""The tenant's PHI directory: names, ids and dates found again in the spellings people write."""

from __future__ import annotations

import pytest

from bridge.phi.directory import PhiDirectory, date_digit_forms
from bridge.phi.policy import default_policy
from bridge.phi.scrub import merge_spans


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
        ("member acm100234 and ACM 100234", {"acm100234", "ACM 100234", "100234"}),  # and its digits alone
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


@pytest.fixture
def names() -> PhiDirectory:
    policy = default_policy()
    known = PhiDirectory(policy.stopwords, policy.particles, policy.transliterations)
    known.learn({"name": "María José Hernández-López", "guarantor": "Hans-Jürgen Müller"})
    known.learn({"name": "Ana Lucía van der Berg", "other": "Siobhán O'Connell-Murphy"})
    known.learn({"member": "MR-556102", "birth": "1968-03-14", "phone": "+1 646 555 0123"})
    return known


@pytest.mark.parametrize(
    ("text", "hits"),
    [
        ("MARIA JOSE HERNANDEZ-LOPEZ called", {"MARIA JOSE HERNANDEZ-LOPEZ"}),
        ("Hans-Juergen Mueller signed", {"Hans", "Juergen Mueller"}),
        ("mom Sofia van der Berg paid", {"Sofia van der Berg"}),  # a relative's given name, particles
        ("billed to Vanderberg today", {"Vanderberg"}),
        ("Siobhan OConnell Murphy", {"Siobhan OConnell Murphy"}),  # a name word runs on to the next
        ("S. O'Connell-Murphy", {"S. O'Connell", "Murphy"}),
        ("Berg, Ana was seen", {"Berg, Ana"}),
        ("mrn 556102 and account HERN031468-0048213", {"556102", "HERN031468-0048213"}),
        ("born 14-MAR-1968", {"14-MAR-1968"}),
        ("call 6465550123", {"6465550123"}),
    ],
)
def test_names_are_found_across_accents_transliterations_particles_and_given_names(
    names: PhiDirectory, text: str, hits: set[str]
) -> None:
    assert {text[s:e] for s, e in merge_spans(names.spans(text))} == hits


def test_a_known_number_is_not_found_across_separators_in_an_amount(names: PhiDirectory) -> None:
    assert found(names, "paid $556,102 for CPT 99213, call ref 20260302-4471 at 1968") == set()


def test_a_lowercase_word_before_a_name_is_not_taken_for_a_given_name(names: PhiDirectory) -> None:
    assert found(names, "called berg today; spoke to Berg") == {"berg", "Berg"}


def test_a_mailbox_teaches_its_name_not_its_domain_and_numbers_match_with_their_zero_padding() -> None:
    directory = PhiDirectory(default_policy().stopwords)
    directory.learn({"email": "ines.barros@gmail.com", "mrn": "00418827", "account": "7720114"})
    assert {"Ines Barros"} == {t for t in found(directory, "Ines Barros wrote from gmail.com") if " " in t}
    assert not found(directory, "wrote from gmail.com")
    assert found(directory, "mrn 418827, account 0007720114") == {"418827", "0007720114"}
