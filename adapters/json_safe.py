"""Values made fit for strict JSON: what an error answer may echo back of a hostile request.

Python's `json` reads `NaN`, `Infinity` and lone surrogate escapes, so a validation error can carry
them back as the input it refuses; strict JSON (and Starlette's `JSONResponse`) cannot write them. The HTTP apps pass their
validation errors through `json_safe` so such a request gets its 422, not a crash.
"""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """`value` with every non-finite float replaced by its name (`nan`, `inf`, `-inf`) and every
    lone surrogate in a string by `?`, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value
