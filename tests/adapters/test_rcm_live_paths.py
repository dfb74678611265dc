"""The live backend puts an identifier into its URL as one path segment: a claim id carrying `/`
names no claim, and never reaches another route of the live system."""

from __future__ import annotations

import pytest

from adapters.rcm import RCM_TOOLS
from adapters.rcm.live import LiveBackend
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolOutcome

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("claim_id", ["CLM-1001/status", "CLM-1001/../CLM-1002", "../admin/world"])
def test_a_claim_id_with_path_characters_names_no_claim(sandbox_url: str, claim_id: str) -> None:
    toolbox = Toolbox(RCM_TOOLS, LiveBackend(sandbox_url, backoff_s=0.01))
    result = toolbox.call(ToolCall(call_id="t", name="get_claim", arguments={"claim_id": claim_id}))
    assert result.outcome is not ToolOutcome.OK, result.result
    assert result.error is not None
