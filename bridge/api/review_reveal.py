"""A document's real text for a reviewer, through the PHI vault, logged.

A draft holds surrogates in place of PHI, so a letter of medical necessity reads as a placeholder.
A reviewer who needs the letter itself asks for it, one document at a time: the text's token is
found in the source episode's archived events (the document as the episode read it), the vault
reveals it under the reviewer's role and name (the vault audits the token), and the review desk's
access log records who read which document of which draft, and when, granted or refused. Nothing
is revealed by default, and the text is shown in that one answer only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters.drafting.store import DraftStore, Reveal
from adapters.surrogates import TOKEN
from bridge.phi import REVIEWER_ROLE, PhiVault, PhiVaultError, UnknownToken
from bridge.store.views import StoredEvent

RETURNED = "loopline.tool.returned.v1"


class NotRevealed(LookupError):
    """The text cannot be revealed (never read by the episode, no vault here, refused)."""


@dataclass(frozen=True)
class Sealed:
    """Where a document's real text is: its token, in a tenant's vault."""

    token: str
    tenant: str


def sealed_text(events: Sequence[StoredEvent], document_id: str) -> Sealed | None:
    """The token of `document_id`'s text as the episode read it (None when it never read it)."""
    for event in events:
        data: Any = event.structured.get("data") or {}
        if event.type != RETURNED or not isinstance(data, dict):
            continue
        document = (
            (data.get("result") or {}).get("document") if isinstance(data.get("result"), dict) else None
        )
        if not isinstance(document, dict) or document.get("document_id") != document_id:
            continue
        text = document.get("text")
        if isinstance(text, str) and TOKEN.fullmatch(text):
            return Sealed(text, event.tenant)
    return None


def reveal_text(
    events: Sequence[StoredEvent],
    *,
    draft_id: str,
    document_id: str,
    reviewer: str,
    vault: PhiVault | None,
    store: DraftStore,
) -> str:
    """The document's real text for `reviewer`; every request is logged. Raises `NotRevealed`."""
    sealed = sealed_text(events, document_id)
    why = ""
    text = ""
    if vault is None:
        why = "no PHI vault is configured for the review page here"
    elif sealed is None:
        why = f"the episode never read the text of {document_id}: there is nothing to reveal"
    else:
        try:
            text = str(vault.reveal(sealed.token, REVIEWER_ROLE, tenant=sealed.tenant, actor=reviewer))
        except (PermissionError, UnknownToken, PhiVaultError) as exc:
            why = f"the vault refused: {type(exc).__name__}: {exc}"
    store.log_reveal(
        Reveal(
            draft_id=draft_id,
            document_id=document_id,
            reviewer=reviewer,
            at=datetime.now(UTC),
            granted=not why,
            why_not=why,
        )
    )
    if why:
        raise NotRevealed(why)
    return text
