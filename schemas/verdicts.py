"""Verifier verdicts: a score in [0, 1] made of named, explained checks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.base import Contract


class CheckResult(Contract):
    """One named check of a verifier."""

    name: str
    """Stable check name, e.g. `outcome.claim.status` or `process.no_patient_billing_on_co`."""
    kind: Literal["outcome", "process", "content"]
    """Outcome checks read the final world; process checks the calls made; content checks what the
    agent wrote (appeal letters, escalation recommendations, requests)."""
    passed: bool
    """Whether the check held."""
    weight: float = Field(default=1.0, ge=0.0)
    """Relative weight in the score."""
    explanation: str
    """Why it passed or failed, in words a reviewer understands."""


class Verdict(Contract):
    """A verifier's judgement of one trajectory."""

    verifier: str
    """Verifier name and version, e.g. `rcm.v1`."""
    score: float = Field(ge=0.0, le=1.0)
    """Weighted score in [0, 1]."""
    passed: bool
    """True only when the score is 1.0 (every check held)."""
    checks: tuple[CheckResult, ...] = ()
    """Every check, in evaluation order."""
