"""The batch work in a child process: same results as in-process, and a dead child is replaced."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from bridge.store import SqlEpisodeReader, SqlEventArchive
from bridge.streams.config import StreamsConfig
from bridge.streams.offload import ProcessRunner
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.messages import message


async def test_a_child_process_does_the_work_and_a_killed_one_is_replaced(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/archive.db"
    SqlEventArchive(url).create_schema()
    runner = ProcessRunner(StreamsConfig(db_url=url))
    try:
        first = await runner.project([message(e, i) for i, e in enumerate(typical_episode("ep-1").events)])
        assert first.appended.inserted == 10
        (child,) = runner._pools["projector"]._processes  # the one work process
        os.kill(child, signal.SIGKILL)
        second = await runner.project([message(e, i) for i, e in enumerate(typical_episode("ep-2").events)])
        assert second.appended.inserted == 10
        assert child not in runner._pools["projector"]._processes
        detected = await runner.detect([message(e) for e in typical_episode("ep-3").events])
        assert sorted(e.data.rule for e in detected.reports) == ["escalation", "tool_failure.http_5xx"]  # type: ignore[attr-defined]
    finally:
        runner.close()
    assert {e.episode_id for e in SqlEpisodeReader(url).list_episodes()} == {"ep-1", "ep-2"}
