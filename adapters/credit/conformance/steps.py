"""Building blocks of the conformance scenarios: one helper per kind of step (`adapters.conformance`
has `Scenario`)."""

from __future__ import annotations

from typing import Any

from adapters.conformance import Step


def pkg(tool: str, package_id: str) -> Step:
    return (tool, {"package_id": package_id})


def statements(package_id: str, period: str) -> Step:
    return ("get_financial_statements", {"package_id": package_id, "period": period})


def read_all(package_id: str) -> tuple[Step, ...]:
    """Every package-level read, as an analyst opens a package."""
    return (
        pkg("get_package", package_id),
        pkg("get_ebitda_bridge", package_id),
        pkg("get_term_sheet", package_id),
        pkg("get_existing_debt", package_id),
        ("get_fund_policy", {}),
    )


FIGURES: dict[str, Any] = {
    "adjusted_ebitda": 10_400_000.0,
    "total_leverage": 3.85,
    "senior_leverage": 3.85,
    "interest_coverage": 3.06,
    "fixed_charge_coverage": 2.41,
    "dscr": 2.2,
    "liquidity": 6_500_000.0,
    "covenant_headroom": [
        {"metric": "max_total_leverage", "headroom_pct": 35.8},
        {"metric": "min_interest_coverage", "headroom_pct": 53.0},
    ],
}


def memo(package_id: str) -> str:
    return (
        f"{package_id}: adjusted EBITDA 10.4m, total leverage 3.85x against a 6.00x covenant "
        "(35.8% headroom), interest coverage 3.06x against 2.00x (53.0% headroom)."
    )


def recommend(package_id: str, decision: str, conditions: list[dict[str, Any]] | None = None) -> Step:
    return (
        "record_recommendation",
        {
            "package_id": package_id,
            "decision": decision,
            "figures": FIGURES,
            "conditions": conditions or [],
            "memo": memo(package_id),
        },
    )


def ask(package_id: str, *items: str) -> Step:
    return (
        "request_information",
        {
            "package_id": package_id,
            "items": list(items),
            "message": f"Please send the following for {package_id}: {', '.join(items)}.",
        },
    )


def escalate(package_id: str, *reasons: str, decision: str = "decline") -> Step:
    return (
        "escalate_to_committee",
        {
            "package_id": package_id,
            "reasons": list(reasons),
            "recommended_decision": decision,
            "figures": FIGURES,
            "memo": memo(package_id),
        },
    )


LOWER_AMOUNT: dict[str, Any] = {
    "kind": "lower_amount",
    "detail": "Reduce the facility to 32m to bring leverage under 5.0x",
    "value": 32_000_000.0,
}


CURE_LIMIT: dict[str, Any] = {
    "kind": "tighter_covenant",
    "detail": "Limit equity cures to 4 over the facility's life, no more than two in any four consecutive quarters",
    "value": 4.0,
}
