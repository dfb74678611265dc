"""Fixtures for the capture tests: the relay's side of an outbox, and a private broker that can die.

Outboxes, recorders and the PHI fixtures come from tests/bridge/conftest.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.capture import DeliveryLog, SqliteOutbox
from tests.bridge.capture.brokers import PrivateBroker


@pytest.fixture
def delivery(outbox: SqliteOutbox) -> Iterator[DeliveryLog]:
    """The relay's side of `outbox`, for tests that play the relay."""
    log = DeliveryLog(outbox.path)
    yield log
    log.close()


@pytest.fixture
def private_broker(tmp_path: Path) -> Iterator[PrivateBroker]:
    """A Tansu broker of this test alone, which it may kill and restart on the same port."""
    broker = PrivateBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.kill()
