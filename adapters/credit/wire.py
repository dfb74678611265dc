"""How each credit tool travels over HTTP to the fund's deal system (`adapters.wire`): a period's
statements come back as the document the borrower sent (`.xlsx`, or the text of PDF pages),
everything else as the result model's JSON."""

from __future__ import annotations

from adapters.credit.tools import CREDIT_TOOLS_BY_NAME
from adapters.wire import Document, Endpoint, ToolRoutes

STATEMENTS = Document(
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "The period's statements as the borrower sent them (an .xlsx workbook, or the text of PDF pages).",
)

ENDPOINTS: dict[str, Endpoint] = {
    "get_package": Endpoint("GET", "/packages/{package_id}"),
    "get_financial_statements": Endpoint(
        "GET", "/packages/{package_id}/periods/{period}/statements", STATEMENTS
    ),
    "get_ebitda_bridge": Endpoint("GET", "/packages/{package_id}/ebitda-bridge"),
    "get_term_sheet": Endpoint("GET", "/packages/{package_id}/term-sheet"),
    "get_existing_debt": Endpoint("GET", "/packages/{package_id}/existing-debt"),
    "get_fund_policy": Endpoint("GET", "/fund-policy"),
    "record_recommendation": Endpoint("POST", "/packages/{package_id}/recommendations"),
    "request_information": Endpoint("POST", "/packages/{package_id}/information-requests"),
    "escalate_to_committee": Endpoint("POST", "/packages/{package_id}/ic-escalations"),
}
ROUTES = ToolRoutes("credit", CREDIT_TOOLS_BY_NAME, ENDPOINTS)
