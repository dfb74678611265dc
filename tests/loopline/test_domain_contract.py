"""The import-linter contract that keeps domains out of shared code names every shared module of
`adapters` and `envs`: a module added beside the domains is checked from its first commit."""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOMAIN_PACKAGES = {"rcm", "credit"}


def test_every_shared_adapters_and_envs_module_is_a_source_of_the_domains_contract() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    contract = config["importlinter:contract:domains"]
    sources = set(contract["source_modules"].split())
    assert "ignore_imports" not in contract
    shared = {
        f"{package}.{path.stem if path.is_file() else path.name}"
        for package in ("adapters", "envs")
        for path in (ROOT / package).iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()
        if path.stem not in DOMAIN_PACKAGES
    }
    assert len(shared) > 30
    assert sorted(shared - sources) == []
