"""How each credit tool travels over HTTP to the fund's deal system: method, path, path arguments.

The sandbox registers its routes from this table and `LiveBackend` builds its requests from it, so
the two cannot drift apart. Arguments not in the path travel as the JSON body (POST) or the query
string (GET). A period's statements come back as the document the borrower sent (`.xlsx`, or the
text of PDF pages); everything else as the result model's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Endpoint:
    """One tool's HTTP shape."""

    method: Literal["GET", "POST"]
    path: str
    """Path template; `{name}` segments are filled from the argument of that name."""
    document: bool = False
    """Whether the response is a statement document rather than JSON."""

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))


ENDPOINTS: dict[str, Endpoint] = {
    "get_package": Endpoint("GET", "/packages/{package_id}"),
    "get_financial_statements": Endpoint(
        "GET", "/packages/{package_id}/periods/{period}/statements", document=True
    ),
    "get_ebitda_bridge": Endpoint("GET", "/packages/{package_id}/ebitda-bridge"),
    "get_term_sheet": Endpoint("GET", "/packages/{package_id}/term-sheet"),
    "get_existing_debt": Endpoint("GET", "/packages/{package_id}/existing-debt"),
    "get_fund_policy": Endpoint("GET", "/fund-policy"),
    "record_recommendation": Endpoint("POST", "/packages/{package_id}/recommendations"),
    "request_information": Endpoint("POST", "/packages/{package_id}/information-requests"),
    "escalate_to_committee": Endpoint("POST", "/packages/{package_id}/ic-escalations"),
}
