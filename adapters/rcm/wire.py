"""How each RCM tool travels over HTTP: method, path, and which arguments go in the path.

The sandbox registers its routes from this table and `LiveBackend` builds its requests from it, so
the two cannot drift apart. Arguments not in the path travel as the JSON body (POST) or the query
string (GET); remittances come back as X12 835 text, everything else as the result model's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

X12_MEDIA_TYPE = "application/edi-x12"


@dataclass(frozen=True)
class Endpoint:
    """One tool's HTTP shape."""

    method: Literal["GET", "POST"]
    path: str
    """Path template; `{name}` segments are filled from the argument of that name."""
    x12: bool = False
    """Whether the response is X12 text rather than JSON."""

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))


ENDPOINTS: dict[str, Endpoint] = {
    "get_remittance": Endpoint("GET", "/era/835", x12=True),
    "get_claim": Endpoint("GET", "/claims/{claim_id}"),
    "get_claim_status": Endpoint("GET", "/claims/{claim_id}/status"),
    "check_eligibility": Endpoint("POST", "/eligibility"),
    "find_original_claim": Endpoint("GET", "/claims/{claim_id}/original"),
    "get_documents": Endpoint("GET", "/claims/{claim_id}/documents"),
    "read_document": Endpoint("GET", "/documents/{document_id}"),
    "get_authorizations": Endpoint("GET", "/claims/{claim_id}/authorizations"),
    "get_payer_rules": Endpoint("GET", "/payers/{payer_id}/rules"),
    "get_payer_bulletins": Endpoint("GET", "/bulletins"),
    "submit_replacement_claim": Endpoint("POST", "/claims/{claim_id}/replacements"),
    "submit_new_claim": Endpoint("POST", "/claims/{claim_id}/new-claims"),
    "submit_appeal": Endpoint("POST", "/claims/{claim_id}/appeals"),
    "request_authorization": Endpoint("POST", "/authorizations"),
    "bill_other_payer": Endpoint("POST", "/claims/{claim_id}/cob-claims"),
    "transfer_to_patient_responsibility": Endpoint("POST", "/claims/{claim_id}/patient-transfers"),
    "post_write_off": Endpoint("POST", "/claims/{claim_id}/write-offs"),
    "close_claim": Endpoint("POST", "/claims/{claim_id}/close"),
    "escalate_to_human": Endpoint("POST", "/claims/{claim_id}/escalations"),
}
