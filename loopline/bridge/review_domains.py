"""What the review page is told of each registered domain: its write tools, its hand-off tool, and
(for rcm) the X12 code tables that put a remittance's codes into words and the moves a reviewer
states a resolution with. The bridge names no domain; the composition root hands it these."""

from __future__ import annotations

from bridge.api.review_domain import Codes, ReviewDomain
from envs.domain import DOMAINS


def rcm_codes() -> Codes:
    """CARC, RARC, group and claim-status descriptions (`adapters.rcm.codes`)."""
    from adapters.rcm import codes

    return Codes(
        carc=codes.CARC, rarc=codes.RARC, groups=codes.GROUP_CODES, claim_status=codes.CLAIM_STATUS_CODES
    )


def rcm_review() -> ReviewDomain:
    """The denial desk: its codes, and the moves a reviewer states a resolution with
    (`envs.rcm.moves`)."""
    from envs.rcm import moves

    return ReviewDomain.of(
        DOMAINS.get("rcm").tool,
        rcm_codes(),
        "escalations",
        moves=moves.MOVES,
        item_field="claim_id",
        move_facts=moves.move_facts,
        case_values=moves.case_values,
    )


def review_domains() -> dict[str, ReviewDomain]:
    """Every registered domain, as the review page needs it (each records hand-offs in
    `escalations`; rcm also offers its moves)."""
    known = {d.name: ReviewDomain.of(d.tool, None, "escalations") for d in DOMAINS.all()}
    return known | {"rcm": rcm_review()}
