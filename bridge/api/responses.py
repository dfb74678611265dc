"""The answers besides success that the API documents: every status a route can give is in its
OpenAPI entry, so a client (or schemathesis) can tell a refusal the API means from a surprise.

Routers take `GUARDED` (token, role, draining) and routes add what their own body and lookups can
answer; FastAPI adds 422 by itself to every route with parameters or a body.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

Responses = dict[int | str, dict[str, Any]]


class Problem(BaseModel):
    """An error answer: why the request was refused, and what to do instead where there is a fix."""

    detail: str
    """The reason, in one sentence."""


def problem(description: str) -> dict[str, Any]:
    """One documented error answer with a `Problem` body."""
    return {"model": Problem, "description": description}


def also(status: int, model: type[BaseModel], description: str) -> Responses:
    """Another success status a route can answer, with its body model."""
    return {status: {"model": model, "description": description}}


def refused(status: int, description: str) -> Responses:
    """One documented error status with a `Problem` body."""
    return {status: problem(description)}


def merge(*parts: Responses) -> Responses:
    """The union of several response tables (later ones win on the same status)."""
    merged: Responses = {}
    for part in parts:
        merged.update(part)
    return merged


DRAINING: Responses = {
    503: problem(
        "The bridge is shutting down and takes no new work, an event could not be recorded (nothing "
        "runs unrecorded), or a store this route needs is not configured here; `Retry-After` says "
        "when to try again where the cause passes."
    )
}
GUARDED: Responses = merge(
    {
        401: problem("No bearer token, or one this bridge does not know."),
        403: problem("The caller's role may not use this route (docs/architecture.md has the matrix)."),
    },
    DRAINING,
)
WITH_BODY: Responses = {
    400: problem("The body is not JSON."),
    413: problem("The body is over the bridge's size limit (refused while it streams in)."),
}


def not_found(what: str) -> Responses:
    """A 404 for a lookup that can miss (or that the caller may not see, which reads the same)."""
    return {404: problem(f"No such {what} (or not one the caller may see).")}


def conflict(what: str) -> Responses:
    """A 409: the request is well formed but the current state refuses it."""
    return {409: problem(what)}
