"""422 answers for requests that fail validation, written so that any input they echo is valid JSON."""

from __future__ import annotations

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from adapters.json_safe import json_safe


async def invalid_request(_: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 with its error list, non-finite numbers (`NaN` in the body) written as names."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": json_safe(jsonable_encoder(exc.errors()))}, status_code=422)
