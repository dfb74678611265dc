"""Archived events as `schemas` events, read from the SQL archive for the exporters and training.

An episode is read whole or not at all: `since` keeps the streams with an event at or after that
time, and `episode` keeps one stream. Events that no longer decode are left out (`loopline audit
verify` names them). A URL is shown without its password.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from bridge.store import SqlEventArchive
from schemas.codec import EventDecodeError, from_structured
from schemas.envelope import Event
from schemas.events import EpisodeStarted
from training.data.production import EpisodeSet, EpisodeSourceError, episode_set


class ArchiveMissing(LookupError):
    """No archive at the URL."""


def archive_label(url: str) -> str:
    """The URL as it may be shown and recorded (no password)."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


def archived_events(url: str, *, episode: str | None = None, since: datetime | None = None) -> list[Event]:
    """The events of every stream (or of `episode`) in the archive at `url`, each stream in `seq`
    order; with `since`, only the streams with an event at or after it."""
    archive = SqlEventArchive(url)
    if not archive.exists():
        raise ArchiveMissing(f"no event archive at {archive_label(url)} (the streams worker creates it)")
    streams: dict[str, list[Event]] = defaultdict(list)
    for stream, doc in archive.iter_streams(stream=episode):
        try:
            streams[stream].append(from_structured(doc))
        except EventDecodeError:
            continue
    return [
        event
        for events in streams.values()
        if since is None or any(e.time >= since for e in events)
        for event in events
    ]


def archive_episodes(url: str) -> EpisodeSet:
    """The archive's confirmed episodes as a dataset source (`training.data.production`)."""
    try:
        events = archived_events(url)
    except ArchiveMissing as exc:
        raise EpisodeSourceError(str(exc)) from None
    return episode_set(events, label=f"archive:{archive_label(url)}")


def episode_streams(events: Iterable[Event]) -> list[list[Event]]:
    """The events grouped by stream, keeping only episodes, in stream-id order."""
    streams: dict[str, list[Event]] = {}
    for event in events:
        streams.setdefault(event.episodeid, []).append(event)
    return [
        sorted(s, key=lambda e: e.seq)
        for _, s in sorted(streams.items())
        if any(isinstance(e.data, EpisodeStarted) for e in s)
    ]
