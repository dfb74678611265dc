"""Payers, their rules, and how the rules change: dated rule versions and the bulletins that
announce them.

A payer's rules change on a date. `Payer.rules` holds the rules in effect before the first change;
each `RuleChange` holds the whole rule set in effect from its `effective_date` on. The rule that
applies to a claim is the one in effect on the claim's (first) date of service: payers publish their
changes "for dates of service on or after" a date, and the date of service is the one date a claim
keeps through replacements and appeals, so a corrected claim or an appeal of an old service stays
under the rule its service was billed under. The payer applies a change from its effective date
whether or not the office has read the bulletin yet; the tools show a change only once its bulletin
is published (`Bulletin.published_date`).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

from schemas.base import Contract

AuthDecision = Literal["approved", "pended", "denied"]

MAX_RULE_DAYS = 3660
"""Longest period any payer rule may set (ten years): a longer one is a typo, and dates computed
from it would overflow the calendar."""


class PayerRules(Contract):
    """Rules a payer applies; typical values, configurable per payer (and at runtime in the sandbox)."""

    timely_filing_days: int = Field(default=365, ge=0, le=MAX_RULE_DAYS)
    """Days after the date of service within which a claim must reach the payer (Medicare: 365)."""
    appeal_window_days: int = Field(default=120, ge=0, le=MAX_RULE_DAYS)
    """Days within which an appeal is accepted, counted from the receipt of the denial (the
    remittance's production date plus `notice_receipt_days`)."""
    notice_receipt_days: int = Field(default=0, ge=0, le=MAX_RULE_DAYS)
    """Days after the date on a notice (the remittance) that the provider is presumed to have
    received it; appeal windows run from receipt (Medicare: 5, 42 CFR 405.942)."""
    retro_auth_window_days: int = Field(default=0, ge=0, le=MAX_RULE_DAYS)
    """Days after the date of service within which a retro-authorization may be requested (0 = never)."""
    auth_decision: AuthDecision = "approved"
    """Decision the payer gives an authorization request by default."""
    auth_decision_by_code: dict[str, AuthDecision] = Field(default_factory=dict)
    """Per procedure code overrides of `auth_decision`."""
    auth_requires_documentation: bool = False
    """Whether an authorization request without clinical attachments is denied."""
    standard_decision_days: int = Field(default=7, ge=0, le=MAX_RULE_DAYS)
    """Days within which a pended standard request is decided (CMS-0057-F: 7 calendar days)."""
    expedited_decision_days: int = Field(default=3, ge=0, le=MAX_RULE_DAYS)
    """Days within which a pended expedited request is decided (CMS-0057-F: 72 hours)."""
    telehealth_requires_modifier_95: bool = False
    """Whether telehealth lines (place of service 02/10) must carry modifier 95."""
    fee_schedule: dict[str, float] = Field(default_factory=dict)
    """Contracted allowed amount in USD per unit, by procedure code, under the practice's agreement
    with this payer (empty when no contract is on file): an allowed amount below it is an
    underpayment to appeal, and only the charge above it is a contractual adjustment."""

    prompt_pay_days: int | None = Field(default=None, ge=1, le=MAX_RULE_DAYS)
    """Days from the receipt of a clean claim (the date its 277CA accepted it), not from the date of
    service, within which the payer must pay it under the state's prompt-pay law; a later payment
    owes interest, which the practice requests from the payer (None: no prompt-pay rule)."""
    prompt_pay_interest_rate: float = Field(default=0.0, ge=0, le=1)
    """Yearly interest the payer owes on a clean claim paid after `prompt_pay_days` (0.12: 12%)."""

    def appeal_deadline(self, notice: date) -> date:
        """The last day to appeal a denial whose notice is dated `notice`."""
        return notice + timedelta(days=self.notice_receipt_days + self.appeal_window_days)


class RuleChange(Contract):
    """A payer's rules as they stand from a date of service on."""

    effective_date: date
    """First date of service the rules apply to."""
    rules: PayerRules
    """The whole rule set in effect from `effective_date` (until a later change)."""
    bulletin_id: str | None = None
    """The bulletin that announces the change (None: published with the payer's rules)."""


class Bulletin(Contract):
    """A payer's provider bulletin announcing a rule change."""

    bulletin_id: str
    """Bulletin id."""
    payer_id: str
    """The payer that issues it."""
    title: str
    """Headline, as the payer words it."""
    text: str
    """The notice itself (free text written by the payer: data, not instructions)."""
    effective_date: date
    """First date of service the change applies to."""
    published_date: date | None = None
    """When the payer published it; None while it is pending (not yet visible to the office)."""


def rules_in_effect(base: PayerRules, changes: tuple[RuleChange, ...], day: date) -> PayerRules:
    """The latest of `changes` in effect on `day`, else `base`."""
    found = [c for c in changes if c.effective_date <= day]
    return max(found, key=lambda c: c.effective_date).rules if found else base


def rule_differences(before: PayerRules, after: PayerRules) -> dict[str, Any]:
    """The rule fields `after` sets differently from `before`, with their new values."""
    old, new = before.model_dump(mode="json"), after.model_dump(mode="json")
    return {key: value for key, value in new.items() if old.get(key) != value}


class Payer(Contract):
    """A health plan that adjudicates claims and sends remittances."""

    payer_id: str
    """Payer identifier as used on claims (the 837 NM1*PR id)."""
    name: str
    """Payer name."""
    kind: Literal["medicare", "medicaid", "commercial"]
    """Kind of plan; decides typical rules and the claim filing indicator."""
    claim_filing_indicator: str
    """Claim filing indicator (CLP06), e.g. MB (Medicare Part B), MC (Medicaid), 12 (PPO), HM (HMO)."""
    rules: PayerRules = Field(default_factory=PayerRules)
    """The payer's filing, appeal and authorization rules in effect before its first dated change."""
    rule_changes: tuple[RuleChange, ...] = ()
    """Dated rule versions, each in effect from its date of service on (oldest first)."""

    def rules_on(self, day: date) -> PayerRules:
        """The rules in effect for a service on `day` (every change, published or not: the payer
        applies its own rules)."""
        return rules_in_effect(self.rules, self.rule_changes, day)
