"""`PhiTokenizer`: PHI values in, stable per-tenant tokens out, raw values handed to the vault.

A token is `phi_` + the first 16 hex digits of HMAC-SHA256(tenant key, canonical JSON of the
value). The same value gives the same token within a tenant, so downstream joins still work (the
member id in an eligibility call and in the appeal are one token), and a different token in every
other tenant. 64 bits keep collisions negligible per tenant (about 1 in 10^7 at a million values).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from bridge.phi.directory import PhiDirectory
from bridge.phi.keys import PhiKeys
from bridge.phi.known import KnownPhi
from bridge.phi.plan import apply_plan, plan_for, tokenize_leaves
from bridge.phi.policy import default_policy
from bridge.phi.scrub import scrub_text
from bridge.phi.vault import PhiVault

TOKEN_PREFIX = "phi_"
TOKEN_HEX = 16
_RECENT_LIMIT = 4096

Unmodelled = Literal["tokenize", "keep"]
"""What happens to data that comes without a model: `tokenize` every leaf value (the safe
default: without a schema nobody can say which values are PHI), or `keep` it (synthetic data)."""


def canonical_value(value: Any) -> bytes:
    """The bytes a value is tokenised from: JSON with sorted keys and no whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _as_dict(data: Mapping[str, Any]) -> dict[str, Any]:
    return data if isinstance(data, dict) else dict(data)


class PhiTokenizer:
    """Tokenises the PHI-marked fields of JSON data and stores the raw values in a vault."""

    def __init__(self, keys: PhiKeys, vault: PhiVault, *, stopwords: frozenset[str] | None = None) -> None:
        self._keys = keys
        self._vault = vault
        policy = default_policy()
        self._stopwords = policy.stopwords if stopwords is None else stopwords
        self._particles = policy.particles
        self._transliterations = policy.transliterations
        self._directories: dict[str, PhiDirectory] = {}
        self._tenant_keys: dict[str, bytes] = {}
        # The same patient recurs in every call of an episode: remembering recent scalar tokens
        # saves the JSON encoding and HMAC on the agent's hot path. It holds
        # raw values in memory, which this process holds anyway while it works the episode.
        self._recent: dict[tuple[str, type, Any], str] = {}

    def token(self, tenant: str, value: Any) -> str:
        """The token of `value` in `tenant` (stores nothing)."""
        scalar = isinstance(value, str | int)  # not float: 0.0 == -0.0, yet their JSON differs
        if scalar:
            cached = self._recent.get((tenant, type(value), value))
            if cached is not None:
                return cached
        key = self._tenant_keys.get(tenant)
        if key is None:
            key = self._tenant_keys.setdefault(tenant, self._keys.tenant_token_key(tenant))
        digest = hmac.new(key, canonical_value(value), hashlib.sha256).hexdigest()
        token = TOKEN_PREFIX + digest[:TOKEN_HEX]
        if scalar:
            if len(self._recent) >= _RECENT_LIMIT:
                self._recent.clear()
            self._recent[(tenant, type(value), value)] = token
        return token

    def tokenize(
        self,
        tenant: str,
        model: type[BaseModel] | None,
        data: Mapping[str, Any],
        *,
        unmodelled: Unmodelled = "tokenize",
        known: KnownPhi | None = None,
    ) -> dict[str, Any]:
        """A copy of `data` with every PHI value replaced by its token; raw values go to the vault.

        `data` is JSON valid for `model` (as the model wrote it or as dumped). With `model=None`
        the `unmodelled` policy decides. The vault is written before this returns, so no token
        reaches an event whose value could be lost. When nothing is PHI, `data` itself may come
        back (callers treat the result as read-only). `known` learns every value tokenised under
        a model (PHI-marked fields, undeclared keys), for scrubbing the episode's free text.
        """
        raw_by_token: dict[str, Any] = {}
        directory = self.directory(tenant)

        def tokenize_one(value: Any) -> str:
            token = self.token(tenant, value)
            raw_by_token[token] = value
            if known is not None and model is not None:
                known.learn(value)
            return token

        def tokenize_marked(value: Any) -> str:
            # A value at a PHI-marked position is the tenant's PHI: every episode looks for it.
            # Undeclared values are not learned tenant-wide (a caller could otherwise make any
            # word PHI for everyone).
            directory.learn(value)
            return tokenize_one(value)

        if model is None:
            if unmodelled == "keep":
                return _as_dict(data)
            redacted = tokenize_leaves(data, tokenize_one)
        else:
            plan = plan_for(model)
            if plan is None:
                return _as_dict(data)  # no PHI anywhere in the model: the common, free case
            redacted = apply_plan(plan, data, tokenize_marked, tokenize_one)
        if raw_by_token:
            self._vault.put_many(tenant, raw_by_token)
        return redacted if isinstance(redacted, dict) else dict(redacted)

    def scrub(self, tenant: str, text: str, known: KnownPhi | None = None) -> str:
        """`text` with every PHI span (a `known` value, a pattern class) replaced by its token; the
        raw spans go to the vault before this returns, like any tokenised value."""
        raw_by_token: dict[str, Any] = {}

        def tokenize_one(value: str) -> str:
            token = self.token(tenant, value)
            raw_by_token[token] = value
            return token

        scrubbed = scrub_text(text, known, tokenize_one, self.directory(tenant))
        if raw_by_token:
            self._vault.put_many(tenant, raw_by_token)
        return scrubbed

    def directory(self, tenant: str) -> PhiDirectory:
        """The PHI values `tenant`'s episodes showed at PHI-marked positions, in this process."""
        found = self._directories.get(tenant)
        if found is None:
            found = self._directories.setdefault(
                tenant, PhiDirectory(self._stopwords, self._particles, self._transliterations)
            )
        return found

    def store(self, tenant: str, raw_by_token: Mapping[str, Any]) -> None:
        """Put raw values in the vault under their tokens (`VaultUnavailable` when it cannot)."""
        if raw_by_token:
            self._vault.put_many(tenant, raw_by_token)
