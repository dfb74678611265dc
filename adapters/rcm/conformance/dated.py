"""Conformance scenarios for dated payer rules and a bulletin published mid-queue (see
`seed.SEED_DATED_CASES`): the rule in effect on each claim's date of service, the bulletins the
office can read, and a pending bulletin that the payer publishes between two calls (an admin step:
`run_scenario`'s `publish`)."""

from __future__ import annotations

from adapters.conformance import Scenario, scenario
from adapters.rcm.conformance.steps import auth, replace, write_off
from adapters.rcm.seed.base import ago

PUBLISH = "admin:publish_bulletin"
"""A step that is no tool call: the payer publishes the bulletin named in its arguments."""

_BEFORE, _UNDER_30, _UNDER_3 = (ago(days).isoformat() for days in (18, 10, 4))


def _auth(claim_id: str, patient: str, dos: str) -> tuple[str, dict[str, object]]:
    tool, arguments = auth(patient, "HRTL", ["20610"], dos, claim_id=claim_id)
    return tool, {**arguments, "diagnosis_codes": ["M17.11"]}


DATED_SCENARIOS: tuple[Scenario, ...] = (
    scenario(
        "payer_rules_apply_by_date_of_service",
        ("get_payer_rules", {"payer_id": "HRTL"}),
        ("get_payer_rules", {"payer_id": "HRTL", "service_date": _BEFORE}),
        ("get_payer_bulletins", {"payer_id": "HRTL"}),
        _auth("CLM-1109", "P-021", _BEFORE),
        write_off("CLM-1109", 260.0, "no_authorization"),
        _auth("CLM-1110", "P-021", _UNDER_30),
        replace("CLM-1110", "HRTL25111000", prior_auth_number="PA00001"),
        ("get_payer_bulletins", {"payer_id": "NOPE"}),
    ),
    scenario(
        "a_bulletin_published_mid_queue",
        ("get_payer_bulletins", {}),
        ("get_payer_rules", {"payer_id": "HRTL", "service_date": _UNDER_3}),
        _auth("CLM-1111", "P-025", _UNDER_3),
        (PUBLISH, {"bulletin_id": "BUL-HRTL-02"}),
        ("get_payer_bulletins", {}),
        ("get_payer_rules", {"payer_id": "HRTL", "service_date": _UNDER_3}),
        ("get_payer_rules", {"payer_id": "HRTL", "service_date": _UNDER_30}),
        write_off("CLM-1111", 260.0, "no_authorization"),
    ),
)
