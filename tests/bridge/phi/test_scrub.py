"""The free-text scrubber: known values in their usual forms, and the pattern classes."""

from __future__ import annotations

import pytest

from bridge.phi.known import KnownPhi
from bridge.phi.patterns import find_spans
from bridge.phi.scrub import merge_spans, scrub_text


def fake(value: str) -> str:
    return "<" + value + ">"


def test_a_known_id_matches_with_other_separators_and_case() -> None:
    known = KnownPhi()
    known.learn({"member_id": "1EG4TE5MK72", "name": ["Maria", "Lopez"], "gender": "F"})
    text = "mbi 1eg4-te5-mk72 for LOPEZ, maria (F)"
    assert scrub_text(text, known, fake) == "mbi <1eg4-te5-mk72> for <LOPEZ>, <maria> (F)"


def test_a_known_iso_date_is_found_in_its_us_and_spelled_forms() -> None:
    known = KnownPhi()
    known.learn("1958-03-12")
    for form in ("3/12/1958", "03/12/58", "March 12, 1958", "12 March 1958"):
        assert scrub_text(f"born {form}.", known, fake) == f"born <{form}>.", form


def test_patterns_find_each_class_and_leave_claim_ids_and_codes_alone() -> None:
    text = "CLM-1001 denied CO-16 for $120.00; call 217-555-0143, SSN 123-45-6789, 17 Elm Street, IL 62704"
    found = {text[s:e] for s, e in merge_spans(find_spans(text))}  # spans may overlap
    assert found == {"217-555-0143", "123-45-6789", "17 Elm Street", "62704"}


def test_overlapping_spans_become_one_replacement() -> None:
    assert merge_spans([(5, 9, "a"), (0, 6, "b"), (12, 14, "c"), (14, 15, "d")]) == [(0, 9), (12, 15)]
    assert scrub_text("", None, fake) == ""


def test_patterns_find_names_after_roles_and_titles_in_any_script_and_order() -> None:
    for text, name in [
        ("Called pt Ms. Li about the bill", "Li"),
        ("Wife Nguyễn Thị Lan signed the ABN", "Nguyễn Thị Lan"),
        ("Patient: Chen, Mei-Ling  DOB: 1991", "Chen, Mei-Ling"),
        ("dependent is the spouse, Ingrid Halvorsen.", "Ingrid Halvorsen"),
        ("Guarantor Dmitri Volkov, SSN on file", "Dmitri Volkov"),
    ]:
        spans = {text[s:e] for s, e, kind in find_spans(text) if kind == "name"}
        assert name in spans, (text, spans)


def test_patterns_find_old_ages_npis_and_cities_but_not_an_id_label_before_digits() -> None:
    text = "94-year-old, age 91, NPI 1437185907, Sausalito, CA 94965; Payer ID 60054; aged 45"
    found = {text[s:e] for s, e in merge_spans(find_spans(text))}
    assert found == {"94-year-old", "91", "1437185907", "Sausalito", "94965"}


def test_a_role_word_capitalised_mid_sentence_is_a_title_word_not_a_name_before() -> None:
    for text in ("the Advance Beneficiary Notice (CMS-R-131) was signed", "call Member Services Monday"):
        assert [text[s:e] for s, e, kind in find_spans(text) if kind == "name"] == [], text


def _found(text: str) -> set[str]:
    return {text[s:e] for s, e in merge_spans(find_spans(text))}


def test_names_are_found_before_their_labels_in_quotes_with_suffixes_and_again_alone() -> None:
    for text, name in [
        ("Amadou Diallo-Sy (MRN 88120) called", "Amadou Diallo-Sy"),
        ("Escalation: Petra Lindqvist's husband paid", "Petra Lindqvist"),
        ("Helga Brandt, CFO, sent the TTM", "Helga Brandt"),
        ('owner Marcus "Max" Oberlin signed', 'Marcus "Max" Oberlin'),
        ("attorney Rosa D'Amato, Esq.", "Rosa D'Amato"),
        ("guarantor Rev. Dr. Elias Moorcroft III", "Elias Moorcroft III"),
        ("Patient: Quinlan, Roisin", "Quinlan, Roisin"),
    ]:
        assert name in _found(text), (text, _found(text))
    text = "niece Orla Keane called; talk only to Orla."
    assert _found(text) == {"Orla Keane", "Orla"}
    text = "her name is Ines Barros-Lima, previously Ines Barros"
    # the lexicon knows both words: the second mention is one name, not its words found again
    assert _found(text) == {"Ines Barros-Lima", "Ines Barros"}


def test_a_label_or_role_word_before_a_label_is_not_a_name() -> None:
    for text in ("Guarantor phone on file", "Medicare MBI termed", "Payer ID 60054 Ins ID on file"):
        assert [text[s:e] for s, e, kind in find_spans(text) if kind == "name"] == [], text


def test_segments_spelled_ages_extensions_and_sentence_ends() -> None:
    nm1 = "NM1*IL*1*OKORO*ADAEZE*N***MI*XKQ220019384~DMG*D8*19720611*F~"
    assert {"OKORO*ADAEZE*N**", "XKQ220019384", "19720611"} <= _found(nm1)
    pid = "PID|1||4471920^^^H^MR||FARAH^IDIL||19551230|F|||9 ASH CT^^ELGIN^IL^60120"
    assert {"4471920", "FARAH^IDIL", "19551230", "9 ASH CT^^ELGIN^IL^60120"} <= _found(pid)
    assert _found("she is ninety-four and lives alone") == {"ninety-four"}
    assert _found("appeal within ninety days of the notice") == set()
    assert _found("login from 10.20.30.41. Reset the password") == {"10.20.30.41"}
    assert _found("work (312) 555-0107 ext 12 or +44 20 7946 0018") == {
        "(312) 555-0107 ext 12",
        "+44 20 7946 0018",
    }
    assert _found("SSN XXX-XX-7301; born 4 de julio de 1961, DOB 19610704") == {
        "7301",
        "4 de julio de 1961",
        "19610704",
    }
    assert _found("mailed to 12 Birch Rd N, Apt 4, Dedham 02026 today") == {
        "12 Birch Rd N, Apt 4, Dedham 02026"
    }


def test_bare_ages_over_89_and_ids_written_with_spaces_are_found() -> None:
    for text, value in [
        ("Patient X (DOB 03/01/1930, 96) - we are recouping", "96"),
        ("At 92, the patient is homebound", "92"),
        ("Insurance card photo uploaded: member EPX 0092 1183 77.", "EPX 0092 1183 77"),
    ]:
        assert value in _found(text), (text, _found(text))
    for text in ("paid at 95% of the fee schedule", "member W123456 billed 99213 at 90 days"):
        assert not {"95", "90", "99213"} & _found(text), text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("reach her at jlarsen77 at yahoo dot com after six", "jlarsen77 at yahoo dot com"),
        ("mailbox t.okafor [at] example [dot] org bounced", "t.okafor [at] example [dot] org"),
        ("portal login from fe80::1c2a:33ff:fe4b:9d01 twice", "fe80::1c2a:33ff:fe4b:9d01"),
        ("charts 2290871 and 2290872 are one person", "2290871 and 2290872"),
        ("court case 24-10077-KLM stays collection", "24-10077-KLM"),
        ("Tribal ID CN-2281734 on the card", "CN-2281734"),
        ("CURP GOMR820101HDFRRN09 and RFC GOMR8201014K7", "GOMR820101HDFRRN09"),
        ("member id QQA 5510 2208 17 per the rep", "QQA 5510 2208 17"),
        ("my father is 97 and lives alone", "97"),
        ("NK1|1|OKAFOR^ADA|SPO^Spouse|12 Oak St^^TULSA^OK^74103|9185550100", "9185550100"),
        ("NM1*IL*1*DOE*JANE~N3*9 ELM ST~N4*TULSA*OK*741031234~", "TULSA*OK*741031234"),
        ('final notice: MARGARET "PEGGY" DOYLE, balance due', 'MARGARET "PEGGY" DOYLE'),
    ],
)
def test_written_out_mailboxes_ipv6_id_lists_other_labels_ages_and_segments_are_found(
    text: str, value: str
) -> None:
    start = text.index(value)
    spans = merge_spans(find_spans(text))
    assert any(s <= start and start + len(value) <= e for s, e in spans), spans


@pytest.mark.parametrize(
    "text",
    [
        "payer id 60054 and claim id 8812203 on the 835",
        "meeting at 10:30:45; see std::vector in the spec",
        "the copay is 95 dollars; limit is 100 per year",
        "met the rep at the office; at 3 pm call back",
        "missing identifier. Need last name from pt",
    ],
)
def test_payer_ids_times_amounts_and_plain_at_are_kept(text: str) -> None:
    assert find_spans(text) == []


def test_a_known_name_is_found_by_its_nickname_and_short_form_written_capitalised() -> None:
    known = KnownPhi()
    known.learn({"name": "Theodore Adeyemi-Okafor", "city": "Columbus"})
    text = "Teddy called; Theo's balance; Yemi paid; teddy bear; Colu"
    found = {text[s:e] for s, e, _ in known.spans(text)}
    assert {"Teddy", "Theo", "Yemi"} <= found and "teddy" not in found and "Colu" not in found


def test_a_name_found_in_a_text_is_found_again_by_its_nickname() -> None:
    text = 'guarantor Frederick Oyelowo ("Freddie") and Oye for short'
    found = {text[s:e] for s, e in merge_spans(find_spans(text))}
    assert any("Freddie" in f for f in found) and any(f == "Oye" for f in found)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Obinna, last name Eze-Okoro, called", "Obinna"),
        ("Re: X; ID: QWE 510 220 871. Denied.", "QWE 510 220 871"),
        ("per tmwangi@portal message, paid", "tmwangi@portal"),
        ("claim for Baby Boy Lindqvist, newborn", "Baby Boy Lindqvist"),
    ],
)
def test_a_name_before_its_surname_label_ids_in_groups_handles_and_newborns_are_found(
    text: str, value: str
) -> None:
    start = text.index(value)
    assert any(s <= start and start + len(value) <= e for s, e in merge_spans(find_spans(text)))


def test_a_flat_in_another_countrys_form_joins_the_address_before_its_town() -> None:
    text = "lives at Calle de Alcalá 120, 2º dcha., Madrid 28009 since May"
    value = "Calle de Alcalá 120, 2º dcha., Madrid 28009"
    start = text.index(value)
    assert any(s <= start and start + len(value) <= e for s, e in merge_spans(find_spans(text)))
