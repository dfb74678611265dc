"""Fixtures for the PHI, recording and capture tests: a fresh PHI key, a real SQLite vault, its
tokenizer and redactor, real outbox files, and recorders over any sink."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import SqliteOutbox
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, EventSink

TENANT = "clinic-a"
SOURCE = "loopline://tests/capture"


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


@pytest.fixture
def open_outbox(tmp_path: Path) -> Iterator[Callable[..., SqliteOutbox]]:
    """Opens outboxes (default: tmp_path/outbox.db); closes them all after."""
    opened: list[SqliteOutbox] = []

    def open_(path: Path | None = None, **options: Any) -> SqliteOutbox:
        outbox = SqliteOutbox(path or tmp_path / "outbox.db", **options)
        opened.append(outbox)
        return outbox

    yield open_
    for outbox in opened:
        outbox.close()


@pytest.fixture
def outbox(open_outbox: Callable[..., SqliteOutbox]) -> SqliteOutbox:
    return open_outbox()


@pytest.fixture
def make_recorder(redactor: Redactor) -> Callable[..., EpisodeRecorder]:
    def make(episode_id: str, sink: EventSink, **kwargs: Any) -> EpisodeRecorder:
        return EpisodeRecorder(episode_id, sink=sink, redactor=redactor, source=SOURCE, **kwargs)

    return make
