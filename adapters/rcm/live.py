"""`LiveBackend`: the RCM tools over HTTP against the live system (in demos and tests, the sandbox);
the failure rules are `adapters.live.HttpLiveBackend`'s. Remittances arrive as X12 835 text."""

from __future__ import annotations

import httpx
from pydantic import BaseModel

from adapters.live import HttpLiveBackend
from adapters.rcm.args import GetRemittanceArgs
from adapters.rcm.results import RemittanceResult
from adapters.rcm.views import remittance_view
from adapters.rcm.wire import ROUTES, X12_MEDIA_TYPE
from adapters.rcm.x12 import parse_835


class LiveBackend(HttpLiveBackend):
    """Calls the live RCM system."""

    routes = ROUTES

    def read_document(self, tool: str, args: BaseModel, response: httpx.Response) -> BaseModel | None:
        assert isinstance(args, GetRemittanceArgs)
        if response.status_code == 204:
            return RemittanceResult(claim_id=args.claim_id, remittances=[])
        if not response.headers.get("content-type", "").startswith(X12_MEDIA_TYPE):
            raise ValueError(f"expected {X12_MEDIA_TYPE}, got {response.headers.get('content-type')!r}")
        remittances, names = parse_835(response.text)
        views = [remittance_view(r, names.get(r.payer_id, r.payer_id)) for r in remittances]
        return RemittanceResult(claim_id=args.claim_id, remittances=views)
