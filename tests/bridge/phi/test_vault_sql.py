"""The vault's contract on every SQL engine the stores support (SQLite here, Postgres where available)."""

from __future__ import annotations

import secrets

import pytest

from bridge.phi import OPERATOR_ROLE, PhiKeys, PhiVault, UnknownToken


def test_the_vault_keeps_its_contract_on_every_sql_engine(sql_url: str) -> None:
    vault = PhiVault.open(sql_url, PhiKeys.from_master(secrets.token_bytes(32)))
    try:
        vault.put_many("clinic-a", {"phi_00000000000000aa": "MBR-1", "phi_00000000000000bb": {"n": 1}})
        vault.put_many("clinic-a", {"phi_00000000000000aa": "MBR-1"})  # a repeat is a no-op
        vault.put_many("clinic-b", {"phi_00000000000000cc": "MBR-9"})
        assert vault.reveal("phi_00000000000000aa", OPERATOR_ROLE, tenant="clinic-a") == "MBR-1"
        assert vault.reveal("phi_00000000000000bb", OPERATOR_ROLE) == {"n": 1}
        with pytest.raises(UnknownToken):
            vault.reveal("phi_00000000000000cc", OPERATOR_ROLE, tenant="clinic-a")
        with pytest.raises(PermissionError):
            vault.reveal("phi_00000000000000aa", "analyst")
    finally:
        vault.close()
