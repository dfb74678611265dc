"""`Redactor`: the one call the recorder makes before any data leaves for the outbox.

It binds a tokenizer to a tenant and to the policy for data without a model, so the recorder never
has to know about keys, vaults or tenants.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from bridge.phi.guard import EventGuard
from bridge.phi.known import KnownPhi
from bridge.phi.tokenizer import PhiTokenizer, Unmodelled

SnapshotRedact = Callable[[dict[str, Any]], dict[str, Any]]
"""Turns a world snapshot into one fit for the event log (see `Redactor.snapshot_redactor`)."""


class Redactor:
    """Schema-driven PHI redaction for one tenant."""

    def __init__(self, tokenizer: PhiTokenizer, tenant: str, *, unmodelled: Unmodelled = "tokenize") -> None:
        self._tokenizer = tokenizer
        self._unmodelled: Unmodelled = unmodelled
        self.tenant = tenant
        self._guards: dict[frozenset[str] | None, EventGuard] = {}

    def redact(
        self, model_cls: type[BaseModel] | None, data: Mapping[str, Any], known: KnownPhi | None = None
    ) -> dict[str, Any]:
        """`data` (JSON valid for `model_cls`) with its PHI fields tokenised.

        `model_cls=None` means nobody knows which values are PHI; the policy given at construction
        decides (by default every leaf value is tokenised). Without PHI, `data` itself may come
        back: treat the result as read-only. `known` learns the values tokenised under the model.
        """
        return self._tokenizer.tokenize(
            self.tenant, model_cls, data, unmodelled=self._unmodelled, known=known
        )

    def scrub(self, text: str, known: KnownPhi | None = None) -> str:
        """Free text with every PHI span replaced by its token: the values `known` holds (the
        episode's PHI fields) in their usual forms, and the pattern classes of `bridge.phi.patterns`."""
        return self._tokenizer.scrub(self.tenant, text, known)

    def snapshot_redactor(self, model_cls: type[BaseModel]) -> SnapshotRedact:
        """A snapshot redactor for world states described by `model_cls` (its PHI fields marked).

        Every PHI value of the world joins the tenant's directory as it is tokenised, so the
        episode's free text is scrubbed of every patient of the world it touched, not only of
        those its tool results have shown so far."""

        def redact_snapshot(snapshot: dict[str, Any]) -> dict[str, Any]:
            return self.redact(model_cls, snapshot)

        return redact_snapshot

    def guard(self, tools: frozenset[str] | None = None) -> EventGuard | None:
        """The PHI guard of this tenant's events (`tools`: the tools the domain offers; others are
        tokenised); None when unmodelled data is kept (synthetic worlds, no PHI to guard)."""
        if self._unmodelled == "keep":
            return None
        # One guard per tool set, shared by every episode: its cache of clean strings is the tenant's.
        found = self._guards.get(tools)
        if found is None:
            found = self._guards.setdefault(tools, EventGuard(self._tokenizer, self.tenant, tools=tools))
        return found
