"""The fund policy in words, from its thresholds: what `get_fund_policy` tells the analyst."""

from __future__ import annotations

from adapters.credit.models import FundPolicy


def policy_rules(p: FundPolicy) -> list[str]:
    """The policy's rules, in the order they apply."""
    return [
        f"Before any decision, request information on a package with a period restated in the last "
        f"{p.restatement_lookback_years} years (restatement_reconciliation) or a quarter missing from the "
        "trailing twelve months (missing_quarter), a trailing twelve months ending more than a quarter plus "
        f"{p.reporting_lag_days} days before today (latest_quarter), or debt flagged refinanced with no sources "
        "and uses (sources_and_uses), or an unsupported add-back whose support would change the decision "
        "(quality_of_earnings), or existing debt that stays and carries maintenance covenants without its "
        "latest certificate (compliance_certificates), a sponsor whose record is not on file (breach_history), "
        "or a customer above the concentration limit whose contract ends before the facility matures "
        "(customer_contracts); if it is still to follow, make no decision. Decide on the file as the answers "
        "leave it: a quality-of-earnings report may support a line, tie it to less, find it recurring or "
        "restate a quarter; a certificate's principal replaces the debt table's.",
        "A compliance certificate under debt that stays showing a failed test its lenders have not waived is a "
        "default at closing: decline. A default in the sponsor's breach history that cost its lenders money is "
        "a prior default (a covenant reset, or a default repaid in full, is not). A largest customer that has "
        "given notice of non-renewal leaves: take its EBITDA contribution off (no concentration condition "
        "then); one whose renewal is still being negotiated: escalate (customer_concentration).",
        "Debt flagged refinanced is retired only as far as the sources and uses repay it; the rest stays in debt.",
        "Compute every figure on the latest four quarters, pro forma for the facility (debt after closing: "
        "the facility, the drawn revolver and the existing debt it does not refinance), in the facility currency.",
        f"Accept only supported, non-recurring add-backs; projected synergies up to {p.addback_cap_pct:g}% of "
        "reported EBITDA. Read each line: a charge booked in "
        f"{p.recurrence_years} earlier fiscal years, or described as annual or ongoing, is recurring; an equity "
        "cure is never earnings; support counts only up to the amount its documents tie to.",
        "Adjusted EBITDA zero or negative (leverage stated as 99.0), or Reported TTM EBITDA zero or negative "
        "(positive only after add-backs, pro forma only): decline, or escalate (non_positive_ebitda).",
        f"Total debt above {p.decline_total_leverage:g}x reported EBITDA (within policy only on adjusted "
        "EBITDA): escalate (addback_dependent_earnings), or decline.",
        f"Total leverage above {p.decline_total_leverage:g}x or interest coverage below "
        f"{p.decline_interest_coverage:g}x: decline.",
        f"Total leverage above {p.escalate_total_leverage:g}x (leverage_above_policy), any covenant headroom "
        f"under {p.min_headroom_pct:g}% (thin_covenant_headroom), or a sponsor with a prior default "
        "(sponsor_prior_default): escalate to investment committee, naming each reason.",
        f"Otherwise approve with conditions when: total leverage above {p.target_total_leverage:g}x "
        f"(lower_amount, at most the amount that gives {p.target_total_leverage:g}x); FCCR under "
        f"{p.min_fccr:g}x (more_equity); earnings in another currency than the facility (currency_hedge); "
        "covenant-lite terms (tighter_covenant, or escalate: covenant_lite); a covenant allowing more than "
        f"{p.max_equity_cures} equity cures over the facility's life (tighter_covenant: a cure limit); one customer above "
        f"{p.max_customer_share_pct:g}% of revenue (concentration_limit, or escalate: customer_concentration).",
        "Otherwise approve, without conditions.",
        f"Recorded figures must be within {p.ratio_tolerance_pct:g}% of the right ones, covenant headroom within "
        f"{p.headroom_tolerance_pts:g} points; the memo cites adjusted EBITDA, total leverage, interest coverage "
        "and each covenant's headroom.",
    ]
