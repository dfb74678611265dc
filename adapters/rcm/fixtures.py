"""The seed world (see `adapters.rcm.seed`): the fixtures tests, docs and the sandbox start from."""

from adapters.rcm.seed import (
    SEED_CASES,
    SEED_DATED_CASES,
    SEED_RETURNED_CASES,
    SEED_RULE_CASES,
    TODAY,
    seed_world,
)
from adapters.rcm.seed.base import BILLING_NPI, DR_KAUR, DR_ORTIZ, PAYERS, PRACTICE, PROVIDERS

__all__ = [
    "BILLING_NPI",
    "DR_KAUR",
    "DR_ORTIZ",
    "PAYERS",
    "PRACTICE",
    "PROVIDERS",
    "SEED_CASES",
    "SEED_DATED_CASES",
    "SEED_RETURNED_CASES",
    "SEED_RULE_CASES",
    "TODAY",
    "seed_world",
]
