"""Marking fields that hold protected health information (PHI) or personal data.

Redaction is schema-driven: capture and dataset code walk a model's fields and tokenise every
field marked here, so adding a PHI field to a model is enough to keep it out of Kafka.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

PHI_KEY = "x-phi"


def phi_field(*, description: str | None = None, **kwargs: Any) -> Any:
    """A pydantic `Field` marked as PHI (shows as `"x-phi": true` in the JSON Schema)."""
    extra = dict(kwargs.pop("json_schema_extra", None) or {})
    extra[PHI_KEY] = True
    if description is not None:  # leave it unset so the attribute docstring becomes the description
        kwargs["description"] = description
    return Field(json_schema_extra=extra, **kwargs)


def is_phi(model: type[BaseModel], field_name: str) -> bool:
    """Whether `field_name` of `model` is marked as PHI."""
    info = model.model_fields[field_name]
    extra = info.json_schema_extra
    return isinstance(extra, dict) and extra.get(PHI_KEY) is True


def phi_fields(model: type[BaseModel]) -> frozenset[str]:
    """Names of the PHI-marked fields declared directly on `model`."""
    return frozenset(name for name in model.model_fields if is_phi(model, name))
