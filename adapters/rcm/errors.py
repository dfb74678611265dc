"""`DomainError`: the business system refused a request (window closed, approval needed, unknown id)."""

from __future__ import annotations

from typing import Literal

from adapters.refusal import DomainRefusal

DomainCode = Literal[
    "unknown_claim",
    "unknown_payer",
    "unknown_patient",
    "unknown_document",
    "unknown_bulletin",
    "invalid_line",
    "invalid_attachment",
    "claim_closed",
    "claim_not_replaceable",
    "claim_was_adjudicated",
    "claim_in_process",
    "claim_already_resubmitted",
    "no_appeal_rights",
    "control_number_mismatch",
    "no_denial_to_appeal",
    "appeal_pending",
    "appeal_window_closed",
    "retro_auth_window_closed",
    "same_payer",
    "no_coverage_at_payer",
    "amount_exceeds_balance",
    "write_off_needs_approval",
    "co_transfer_refused",
    "secondary_payer_first",
    "no_prior_adjudication",
    "cob_order_mismatch",
    "member_not_this_patient",
    "npi_not_on_file",
    "auth_not_on_file",
]

# HTTP status the sandbox answers a refusal with: unknown ids are 404, business refusals 409.
HTTP_STATUS: dict[str, int] = {
    "unknown_claim": 404,
    "unknown_payer": 404,
    "unknown_patient": 404,
    "unknown_document": 404,
    "unknown_bulletin": 404,
}


class DomainError(DomainRefusal[DomainCode]):
    """A refusal of this domain; unknown ids are 404, business refusals 409."""

    http_statuses = HTTP_STATUS
