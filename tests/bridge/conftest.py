"""PHI fixtures for the capture and PHI tests: a fresh key, a real SQLite vault, its tokenizer and redactor."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor

TENANT = "clinic-a"


@pytest.fixture
def phi_keys() -> PhiKeys:
    return PhiKeys.from_master(secrets.token_bytes(32))


@pytest.fixture
def vault(tmp_path: Path, phi_keys: PhiKeys) -> Iterator[PhiVault]:
    store = PhiVault.open(f"sqlite:///{tmp_path / 'vault.db'}", phi_keys)
    yield store
    store.close()


@pytest.fixture
def tokenizer(phi_keys: PhiKeys, vault: PhiVault) -> PhiTokenizer:
    return PhiTokenizer(phi_keys, vault)


@pytest.fixture
def redactor(tokenizer: PhiTokenizer) -> Redactor:
    return Redactor(tokenizer, TENANT)
