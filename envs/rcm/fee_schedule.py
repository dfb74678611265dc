"""A payer's fee schedule kept as a document (a contract exhibit) rather than as the payer's data.

A specialist who finds no contracted rate in the payer's data looks for the contract on file: a
document titled as the payer's fee schedule, in effect on the date of service, listing
`CODE: $rate` pairs.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

_RATE = re.compile(r"\b([0-9A-Z]\d{3}[0-9A-Z])(?: [A-Z0-9]{2})?: \$(\d[\d,]*(?:\.\d{2})?)")
_EFFECTIVE = re.compile(r"\beffective (\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)


def is_fee_schedule(summary: dict[str, Any], payer_name: str) -> bool:
    """Whether a document summary (from `get_documents`) is this payer's fee schedule."""
    title = str(summary.get("title") or "").lower()
    return "fee schedule" in title and payer_name.lower() in title


def rates(document: dict[str, Any], service_date: date) -> dict[str, float]:
    """The contracted rate per procedure code the document lists, or nothing when it takes effect
    after the date of service."""
    text = str(document.get("text") or "")
    effective = _EFFECTIVE.search(text)
    if effective and date.fromisoformat(effective.group(1)) > service_date:
        return {}
    return {code: float(rate.replace(",", "")) for code, rate in _RATE.findall(text)}
