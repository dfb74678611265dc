"""The reference specialist reads what a coder reads: a note's narrative when it has no coding
summary, a fee schedule kept as a document, a 277CA rejection; and it passes the expert set."""

from __future__ import annotations

from datetime import date

from envs.domain import DOMAINS
from envs.rcm.expert import load_expert_cases
from envs.rcm.fee_schedule import is_fee_schedule, rates
from envs.rcm.narrative import distinct_modifier, rendering_npi
from loopline.card.build import policy_on_expert_set

BAR = 0.95


def test_the_reference_specialist_passes_at_least_95_percent_of_the_expert_set() -> None:
    cases = load_expert_cases()
    result = policy_on_expert_set(cases, DOMAINS.get("rcm").policies["reference"][0])
    assert result.passed / result.cases >= BAR, result.failed_cases


def test_a_narrative_names_its_rendering_npi_only_with_a_valid_check_digit() -> None:
    assert rendering_npi("Seen and examined by Ana Ortiz, MD (NPI 1497758544).") == "1497758544"
    assert rendering_npi("Seen and examined by Ana Ortiz, MD (NPI 1497758545).") is None
    assert rendering_npi("Referred to Dr Kaur (NPI 1497758544) for follow-up.") is None


def test_two_providers_named_as_rendering_decide_nothing() -> None:
    text = "Seen by Ana Ortiz, MD (NPI 1497758544). Examined by Ben Kaur, MD (NPI 2580730218)."
    assert rendering_npi(text) is None


def test_a_separate_site_documents_xs_and_the_same_wound_documents_nothing() -> None:
    separate = distinct_modifier(
        "Separately, debridement of an ulcer on the right foot: a distinct anatomic site."
    )
    assert separate is not None and separate.modifier == "XS"
    assert distinct_modifier("Excisional debridement of the same ulcer, same session, same wound.") is None
    assert distinct_modifier("Debridement of the ulcer edge.") is None


def test_a_separate_encounter_documents_xe() -> None:
    found = distinct_modifier("The patient returned later the same day for a separate encounter.")
    assert found is not None and found.modifier == "XE"


def test_a_fee_schedule_document_lists_its_rates_from_its_effective_date() -> None:
    doc = {
        "text": "Acme Health PPO exhibit B (fee schedule), effective 2025-01-01. 99213: $110.00. 99214: $165.00."
    }
    assert rates(doc, date(2025, 5, 21)) == {"99213": 110.0, "99214": 165.0}
    assert rates(doc, date(2024, 12, 31)) == {}


def test_only_the_payers_own_fee_schedule_counts() -> None:
    summary = {"title": "Acme Health PPO fee schedule (contract exhibit B)"}
    assert is_fee_schedule(summary, "Acme Health PPO")
    assert not is_fee_schedule(summary, "BlueShield")
    assert not is_fee_schedule({"title": "Acme Health PPO welcome letter"}, "Acme Health PPO")
