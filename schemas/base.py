"""The one pydantic base every contract in `schemas/` uses.

Field docstrings become JSON-Schema descriptions (`use_attribute_docstrings`): they are the contract
that people and models read, so every field has one.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Contract(BaseModel):
    """Immutable, strict-about-extras wire model."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_inf_nan="strings",
    )
