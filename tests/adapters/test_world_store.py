"""The sandboxes' world store keeps each world under its name: two domains' sandboxes can share one
database, and replacing one world leaves the other as it was."""

from __future__ import annotations

from pathlib import Path

from adapters.credit.sandbox import seed_world as credit_seed
from adapters.credit.sandbox.store import SqlWorldStore as CreditStore
from adapters.rcm.sandbox.store import SqlWorldStore as RcmStore
from adapters.rcm.seed import seed_world as rcm_seed


def test_two_domains_worlds_share_one_database_without_mixing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sandboxes.db'}"
    rcm, credit = RcmStore(url), CreditStore(url)
    rcm.replace(rcm_seed())
    credit.replace(credit_seed())
    emptied = credit_seed().model_copy(update={"packages": {}})
    credit.replace(emptied)

    assert RcmStore(url).load() == rcm_seed()
    assert CreditStore(url).load() == emptied


def test_an_empty_database_holds_no_world(tmp_path: Path) -> None:
    assert RcmStore(f"sqlite:///{tmp_path / 'empty.db'}").load() is None
