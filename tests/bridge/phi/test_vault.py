"""Tokens and the vault: stable per tenant, encrypted at rest, revealed to operators only."""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path

import pytest

from bridge.phi import OPERATOR_ROLE, PhiKeys, PhiTokenizer, PhiVault, PhiVaultError, Redactor, UnknownToken
from tests.bridge.phi.phi_models import LookupArgs


def test_a_value_gets_the_same_token_within_a_tenant_and_another_in_every_other(
    tokenizer: PhiTokenizer,
) -> None:
    a1 = tokenizer.token("clinic-a", "MBR-0042")
    a2 = tokenizer.token("clinic-a", "MBR-0042")
    b = tokenizer.token("clinic-b", "MBR-0042")
    assert a1 == a2 and a1 != b
    assert a1.startswith("phi_") and len(a1) == len("phi_") + 16
    assert tokenizer.token("clinic-a", "MBR-0043") != a1


def test_tokens_depend_on_the_master_key(vault: PhiVault) -> None:
    one = PhiTokenizer(PhiKeys.from_master(secrets.token_bytes(32)), vault)
    two = PhiTokenizer(PhiKeys.from_master(secrets.token_bytes(32)), vault)
    assert one.token("clinic-a", "MBR-0042") != two.token("clinic-a", "MBR-0042")


def test_a_string_and_a_number_with_the_same_digits_get_different_tokens(tokenizer: PhiTokenizer) -> None:
    assert tokenizer.token("clinic-a", "1815") != tokenizer.token("clinic-a", 1815)


def test_the_vault_reveals_each_raw_value_to_an_operator(redactor: Redactor, vault: PhiVault) -> None:
    redacted = redactor.redact(LookupArgs, {"claim_id": "CLM-1", "member_id": "MBR-0042"})
    assert redacted["claim_id"] == "CLM-1"
    assert vault.reveal(redacted["member_id"], OPERATOR_ROLE, tenant="clinic-a") == "MBR-0042"
    assert vault.reveal(redacted["member_id"], OPERATOR_ROLE) == "MBR-0042"  # unique without tenant


def test_structured_values_round_trip_through_the_vault(tokenizer: PhiTokenizer, vault: PhiVault) -> None:
    value = {"name": "Ada", "birth_year": 1815, "aliases": ["A. L."]}
    out = tokenizer.tokenize("clinic-a", None, {"patient": value}, unmodelled="tokenize")
    assert vault.reveal(out["patient"]["birth_year"], OPERATOR_ROLE) == 1815
    assert vault.reveal(out["patient"]["aliases"][0], OPERATOR_ROLE) == "A. L."


def test_other_roles_are_refused_and_every_attempt_is_audited(
    redactor: Redactor, vault: PhiVault, tmp_path: Path
) -> None:
    token = redactor.redact(LookupArgs, {"claim_id": "C", "member_id": "MBR-0042"})["member_id"]
    for role in ("analyst", "supervisor", "Operator", ""):
        with pytest.raises(PermissionError):
            vault.reveal(token, role, actor="u-1")
    vault.reveal(token, OPERATOR_ROLE, actor="u-2")
    conn = sqlite3.connect(tmp_path / "vault.db")
    audit = conn.execute("SELECT role, actor, granted FROM phi_reveals ORDER BY id").fetchall()
    conn.close()
    assert audit == [("analyst", "u-1", 0), ("supervisor", "u-1", 0), ("Operator", "u-1", 0), ("", "u-1", 0),
                     ("operator", "u-2", 1)]  # fmt: skip


def test_raw_values_are_encrypted_at_rest(redactor: Redactor, vault: PhiVault, tmp_path: Path) -> None:
    redactor.redact(LookupArgs, {"claim_id": "C", "member_id": "MBR-SECRET-0042"})
    vault.close()
    for name in ("vault.db", "vault.db-wal"):
        path = tmp_path / name
        if path.exists():
            assert b"MBR-SECRET-0042" not in path.read_bytes()


def test_a_ciphertext_moved_to_another_token_does_not_decrypt(
    redactor: Redactor, vault: PhiVault, tmp_path: Path
) -> None:
    one = redactor.redact(LookupArgs, {"claim_id": "C", "member_id": "MBR-1"})["member_id"]
    two = redactor.redact(LookupArgs, {"claim_id": "C", "member_id": "MBR-2"})["member_id"]
    conn = sqlite3.connect(tmp_path / "vault.db")
    blob = conn.execute("SELECT ciphertext FROM phi_vault WHERE token = ?", (one,)).fetchone()[0]
    conn.execute("UPDATE phi_vault SET ciphertext = ? WHERE token = ?", (blob, two))
    conn.commit()
    conn.close()
    with pytest.raises(PhiVaultError, match="authentication"):
        vault.reveal(two, OPERATOR_ROLE)


def test_a_vault_opened_with_another_key_names_the_mismatch(redactor: Redactor, tmp_path: Path) -> None:
    token = redactor.redact(LookupArgs, {"claim_id": "C", "member_id": "MBR-1"})["member_id"]
    other = PhiVault.open(f"sqlite:///{tmp_path / 'vault.db'}", PhiKeys.from_master(secrets.token_bytes(32)))
    try:
        with pytest.raises(PhiVaultError, match="sealed with key"):
            other.reveal(token, OPERATOR_ROLE)
    finally:
        other.close()


def test_an_unknown_token_is_reported(vault: PhiVault) -> None:
    with pytest.raises(UnknownToken):
        vault.reveal("phi_0000000000000000", OPERATOR_ROLE)


def test_unmodelled_data_is_tokenised_by_default_and_kept_when_told(tokenizer: PhiTokenizer) -> None:
    data = {"member": "MBR-1", "count": 3}
    strict = Redactor(tokenizer, "clinic-a").redact(None, data)
    assert strict["member"].startswith("phi_") and strict["count"].startswith("phi_")
    assert Redactor(tokenizer, "clinic-a", unmodelled="keep").redact(None, data) == data
