"""Protected health information at the capture boundary: keys, tokens, the vault, schema-driven redaction.

    keys = PhiKeys.from_config(secret, environment="production")  # refuses placeholders
    vault = PhiVault.open("sqlite:////var/lib/loopline/vault.db", keys)
    redactor = Redactor(PhiTokenizer(keys, vault), "clinic-a")
    redactor.redact(LookupArgs, {"member_id": "MBR-1"})         # {"member_id": "phi_…"}

docs/capture.md ("PHI at the boundary") explains the rules.
"""

from bridge.phi.keys import Environment, PhiKeyError, PhiKeys, parse_master_key
from bridge.phi.known import KnownPhi
from bridge.phi.redactor import Redactor, SnapshotRedact
from bridge.phi.tokenizer import PhiTokenizer, Unmodelled
from bridge.phi.vault import (
    OPERATOR_ROLE,
    REVIEWER_ROLE,
    PhiVault,
    PhiVaultError,
    UnknownToken,
    VaultUnavailable,
)

__all__ = [
    "OPERATOR_ROLE",
    "REVIEWER_ROLE",
    "Environment",
    "KnownPhi",
    "PhiKeyError",
    "PhiKeys",
    "PhiTokenizer",
    "PhiVault",
    "PhiVaultError",
    "Redactor",
    "SnapshotRedact",
    "UnknownToken",
    "Unmodelled",
    "VaultUnavailable",
    "parse_master_key",
]
