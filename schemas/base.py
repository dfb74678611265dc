"""The one pydantic base every contract in `schemas/` uses.

Field docstrings become JSON-Schema descriptions (`use_attribute_docstrings`): they are the contract
that people and models read, so every field has one.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

PRINTABLE = r"^[^\x00-\x1f\x7f]+$"
"""No control characters (NUL cannot be stored in Postgres text; none belong in an identifier).

For anything that becomes an event's `subject` or id: work item ids, tool names."""


class Contract(BaseModel):
    """Immutable, strict-about-extras wire model."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_inf_nan="strings",
    )
