"""Verifiers: outcome against the gold world, process against the rules, one gated score."""

from envs.verifiers.base import (
    OUTCOME_SHARE,
    VERIFIERS,
    ProcessRule,
    UnknownVerifier,
    VerifierRegistry,
    gated_score,
    make_verdict,
    score_task,
)
from envs.verifiers.outcome import gold_world, outcome_checks
from envs.verifiers.port import Verifier
from envs.verifiers.process import escalation_check, forbidden_checks, matches, required_checks
from envs.verifiers.standard import StandardVerifier

__all__ = [
    "OUTCOME_SHARE",
    "VERIFIERS",
    "ProcessRule",
    "StandardVerifier",
    "UnknownVerifier",
    "Verifier",
    "VerifierRegistry",
    "escalation_check",
    "forbidden_checks",
    "gated_score",
    "gold_world",
    "make_verdict",
    "matches",
    "outcome_checks",
    "required_checks",
    "score_task",
]
