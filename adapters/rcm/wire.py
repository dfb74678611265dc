"""How each RCM tool travels over HTTP (`adapters.wire`): remittances come back as X12 835 text,
everything else as the result model's JSON."""

from __future__ import annotations

from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from adapters.wire import Document, Endpoint, ToolRoutes

X12_MEDIA_TYPE = "application/edi-x12"
X12 = Document(X12_MEDIA_TYPE, "The remittances as X12 835.", empty="No remittance for the claim yet.")

ENDPOINTS: dict[str, Endpoint] = {
    "get_remittance": Endpoint("GET", "/era/835", X12),
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
ROUTES = ToolRoutes("RCM", RCM_TOOLS_BY_NAME, ENDPOINTS)
