"""Fixtures for the capture tests: real SQLite files, and a private broker that can die.

The PHI fixtures (`phi_keys`, `vault`, `tokenizer`, `redactor`) come from tests/bridge/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import DeliveryLog, EpisodeRecorder, EventSink, SqliteOutbox
from bridge.phi import Redactor
from tests.bridge.capture.brokers import PrivateBroker

SOURCE = "loopline://tests/capture"


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
def delivery(outbox: SqliteOutbox) -> Iterator[DeliveryLog]:
    """The relay's side of `outbox`, for tests that play the relay."""
    log = DeliveryLog(outbox.path)
    yield log
    log.close()


@pytest.fixture
def make_recorder(redactor: Redactor) -> Callable[..., EpisodeRecorder]:
    def make(episode_id: str, sink: EventSink, **kwargs: Any) -> EpisodeRecorder:
        return EpisodeRecorder(episode_id, sink=sink, redactor=redactor, source=SOURCE, **kwargs)

    return make


@pytest.fixture
def private_broker(tmp_path: Path) -> Iterator[PrivateBroker]:
    """A Tansu broker of this test alone, which it may kill and restart on the same port."""
    broker = PrivateBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.kill()
