"""The adapter registry as the commands open it: the release store under the state folder (or the
SQL database `db_url` names), publishing to Kafka when asked (docs/release.md)."""

from __future__ import annotations

from pathlib import Path

from training.release.manager import SOURCE, ReleaseManager
from training.release.store import SqlReleaseStore


class PublishUnavailable(RuntimeError):
    """Release events were asked to go to Kafka, but no publisher could be made."""


def open_registry(state: Path, db_url: str | None, publish: bool = False) -> ReleaseManager:
    """The registry over `db_url` (default SQLite `STATE/release.db`); with `publish`, every change
    also goes to the event topic, MACed with the release key (`loopline.kafka.publisher`)."""
    if db_url is None:
        state.mkdir(parents=True, exist_ok=True)
        db_url = f"sqlite:///{state / 'release.db'}"
    store = SqlReleaseStore(db_url)
    store.create_schema()
    if not publish:
        return ReleaseManager(store)
    from loopline.kafka.publisher import signed_publisher

    try:
        return ReleaseManager(store, publish=signed_publisher(SOURCE))
    except Exception as exc:  # the Kafka client's errors vary; nothing is stored yet
        raise PublishUnavailable(f"cannot publish release events: {exc}") from None
