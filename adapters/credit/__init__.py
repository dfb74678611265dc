"""Private-credit underwriting: the deal team's tools, pure domain logic and the sim backend.

`CREDIT_TOOLS` are the tools the agent sees; the package models live in `models`, what the
analyst writes (figures, recommendations, requests, escalations) in `records`.
"""

from adapters.credit.tools import CREDIT_TOOLS, CREDIT_TOOLS_BY_NAME

__all__ = ["CREDIT_TOOLS", "CREDIT_TOOLS_BY_NAME"]
