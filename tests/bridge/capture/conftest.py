"""Fixtures for the capture tests: real SQLite files, a real vault, and a private broker that can die."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import EpisodeRecorder, PhiKeys, PhiTokenizer, PhiVault, Redactor, SqliteOutbox
from bridge.capture.outbox import Durability
from bridge.capture.sink import EventSink
from tests.bridge.capture.brokers import PrivateBroker

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
    """Opens outboxes (default: tmp_path/outbox.db, process durability); closes them all after."""
    opened: list[SqliteOutbox] = []

    def open_(path: Path | None = None, durability: Durability = "process", **options: Any) -> SqliteOutbox:
        outbox = SqliteOutbox(path or tmp_path / "outbox.db", durability=durability, **options)
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
    def make(episode_id: str, sink: EventSink, **kwargs: object) -> EpisodeRecorder:
        return EpisodeRecorder(episode_id, sink=sink, redactor=redactor, source=SOURCE, **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture
def private_broker(tmp_path: Path) -> Iterator[PrivateBroker]:
    """A Tansu broker of this test alone, which it may kill and restart on the same port."""
    broker = PrivateBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.kill()
