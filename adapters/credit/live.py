"""`LiveBackend`: the credit tools over HTTP against the fund's deal system (the sandbox in demos
and tests); the failure rules are `adapters.live.HttpLiveBackend`'s.

A period's statements arrive as the borrower's document (workbook or PDF text) and are read here
(`adapters.credit.documents`): damage the reader repairs exactly is repaired; a figure it finds
suspect or cannot read fails the call (kind `backend`, naming the cell or line), so a wrong figure
never reaches the agent.
"""

from __future__ import annotations

import httpx
from pydantic import BaseModel

from adapters.backend import ToolFailure
from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.periods import read_period_document
from adapters.credit.results import FinancialStatementsResult
from adapters.credit.wire import ROUTES
from adapters.live import HttpLiveBackend
from schemas.tools import ToolError


class LiveBackend(HttpLiveBackend):
    """Calls the live deal system."""

    routes = ROUTES

    def read_document(self, tool: str, args: BaseModel, response: httpx.Response) -> BaseModel | None:
        media_type = response.headers.get("content-type", "")
        if media_type.startswith("application/json"):
            return None  # figures no statement can print travel as JSON
        try:
            period = read_period_document(response.content, media_type)
        except DocumentError as exc:
            message = f"the borrower's document for this period cannot be relied on: {exc}"
            details = {"location": exc.location, "problem": exc.problem}
            raise ToolFailure(
                ToolError(kind="backend", message=message, status_code=response.status_code, details=details)
            ) from exc
        return FinancialStatementsResult(package_id=str(getattr(args, "package_id", "")), period=period)
