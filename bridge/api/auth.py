"""Bearer-token authentication with roles: agent, integration, reviewer, operator.

Tokens are configured as SHA-256 digests (never stored in clear). A missing or unknown token is 401
with `WWW-Authenticate: Bearer`; a known token without the route's role is 403. Each token is one
caller (`Caller.id`, derived from its digest), so an agent's episodes can be told from another's, and
may name the person it belongs to (`Caller.name`): a reviewer's labels and review decisions carry
that name, never one the request states.
Roles are least privilege: a route admits exactly the roles it names (docs/architecture.md has the
matrix), and no role is admitted everywhere.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer


class Role(StrEnum):
    """What a caller may do."""

    AGENT = "agent"  # run episodes, call tools through the gateway, read its own episodes
    INTEGRATION = "integration"  # the business system: report later outcomes of episodes
    REVIEWER = "reviewer"  # read episodes, events and edge cases; label trajectories; review drafts
    OPERATOR = "operator"  # operations: read episodes and capture's state, reveal PHI from the vault


@dataclass(frozen=True)
class Caller:
    """Who is calling: the token's role and a stable id that does not reveal the token."""

    role: Role
    id: str
    name: str = ""
    """The person the token belongs to, as configured; its `id` when none is."""

    @property
    def identity(self) -> str:
        """Who this caller is, for the record: the configured name, else the token's id."""
        return self.name or self.id


@dataclass(frozen=True)
class Identity:
    """A configured token's role and, optionally, the person it belongs to."""

    role: Role
    name: str = ""

    def __post_init__(self) -> None:
        if len(self.name) > 128 or not self.name.isprintable() or self.name != self.name.strip():
            raise ValueError(
                f"a token's name must be at most 128 printable characters without surrounding blanks, got {self.name!r}"
            )


def token_digest(token: str) -> str:
    """The digest under which a token is configured."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenTable:
    """Token digest → role, or role and the person's name (`Identity`)."""

    def __init__(self, digests: Mapping[str, Role | Identity]) -> None:
        self._digests = {
            digest: entry if isinstance(entry, Identity) else Identity(entry)
            for digest, entry in digests.items()
        }

    @classmethod
    def from_tokens(cls, tokens: Mapping[str, Role | Identity]) -> TokenTable:
        """Build from clear tokens (tests, the embedded demo)."""
        return cls({token_digest(t): entry for t, entry in tokens.items()})

    def caller_of(self, token: str) -> Caller | None:
        """The caller a token stands for; None for an unknown token."""
        digest = token_digest(token)
        for known, entry in self._digests.items():
            if hmac.compare_digest(known, digest):
                return Caller(entry.role, "caller-" + known[:16], entry.name)
        return None

    def role_of(self, token: str) -> Role | None:
        """The role of a token; None for an unknown token."""
        caller = self.caller_of(token)
        return None if caller is None else caller.role


_bearer = HTTPBearer(auto_error=False, description="Bearer token; its role decides what it may do.")


def require(*roles: Role) -> Callable[..., Caller]:
    """A FastAPI dependency admitting exactly the given roles; its value is the `Caller`, for the
    routes that scope what a caller sees."""
    allowed = set(roles)
    wanted = " or ".join(sorted(r.value for r in allowed))

    def dependency(
        request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)
    ) -> Caller:
        table: TokenTable = request.app.state.tokens
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED, "missing bearer token", headers={"WWW-Authenticate": "Bearer"}
            )
        caller = table.caller_of(credentials.credentials)
        if caller is None:
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED, "unknown bearer token", headers={"WWW-Authenticate": "Bearer"}
            )
        if caller.role not in allowed:
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, f"role {caller.role.value} may not do this; needs {wanted}"
            )
        return caller

    return dependency
