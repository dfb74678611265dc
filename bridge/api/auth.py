"""Bearer-token authentication with roles: agent, reviewer, operator.

Tokens are configured as SHA-256 digests (never stored in clear). A missing or unknown token is 401
with `WWW-Authenticate: Bearer`; a known token without the route's role is 403.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from enum import StrEnum

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer


class Role(StrEnum):
    """What a caller may do."""

    AGENT = "agent"  # run episodes, call tools through the gateway, report outcomes
    REVIEWER = "reviewer"  # read episodes, events and edge cases; label trajectories
    OPERATOR = "operator"  # everything, including revealing PHI from the vault


def token_digest(token: str) -> str:
    """The digest under which a token is configured."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenTable:
    """Token digest → role."""

    def __init__(self, digests: Mapping[str, Role]) -> None:
        self._digests = dict(digests)

    @classmethod
    def from_tokens(cls, tokens: Mapping[str, Role]) -> TokenTable:
        """Build from clear tokens (tests, the embedded demo)."""
        return cls({token_digest(t): role for t, role in tokens.items()})

    def role_of(self, token: str) -> Role | None:
        digest = token_digest(token)
        for known, role in self._digests.items():
            if hmac.compare_digest(known, digest):
                return role
        return None


_bearer = HTTPBearer(auto_error=False, description="Bearer token; its role decides what it may do.")


def require(*roles: Role) -> Callable[..., Role]:
    """A FastAPI dependency admitting the given roles (operators are always admitted)."""
    allowed = {*roles, Role.OPERATOR}

    def dependency(
        request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)
    ) -> Role:
        table: TokenTable = request.app.state.tokens
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED, "missing bearer token", headers={"WWW-Authenticate": "Bearer"}
            )
        role = table.role_of(credentials.credentials)
        if role is None:
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED, "unknown bearer token", headers={"WWW-Authenticate": "Bearer"}
            )
        if role not in allowed:
            wanted = " or ".join(sorted(r.value for r in allowed))
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, f"role {role.value} may not do this; needs {wanted}"
            )
        return role

    return dependency
