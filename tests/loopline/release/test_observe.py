"""`loopline adapters observe`: the canary's production episodes, read from a real archive (the
adapter on `episode.started`, `verifier.scored`, `outcome.observed`), are counted once each and
the sequential test decides on them by itself: a bad adapter is rolled back, a good one promoted."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.runtime.canary import bucket
from bridge.store import SqlEventArchive
from bridge.store.archive import ArchiveRecord
from loopline.cli import app
from loopline.release.observe import ServedEpisode, episode_passed
from schemas import EpisodeChain, WorkItem
from schemas.events import EpisodeEnded, EpisodeStarted, OutcomeObserved, PolicyRef, VerifierScored
from schemas.verdicts import Verdict
from tests.loopline.gated import gated_adapter

pytestmark = pytest.mark.integration

SECRET = b"observe-test-canary-secret-0000"


def _adapters(tmp_path: Path, *args: str) -> str:
    result = CliRunner().invoke(
        app,
        [
            "adapters",
            *args,
            "--state",
            str(tmp_path / "state"),
            "--db-url",
            f"sqlite:///{tmp_path / 'release.db'}",
        ],
    )
    assert result.exit_code == 0, result.output
    return result.output


def _ticking(start: datetime) -> Callable[[], datetime]:
    ticks = iter(range(1000))
    return lambda: start + timedelta(milliseconds=next(ticks))


def _production_day(
    archive: SqlEventArchive, canary: str, share: float, passes: Callable[[str, int], bool], episodes: int
) -> None:
    """Episodes routed as the bridge routes them (sticky by hash), each scored by a verifier and
    followed by a business outcome that agrees with it; `passes(arm, n)` says which pass."""
    start = datetime.now(UTC) + timedelta(seconds=5)
    records: list[ArchiveRecord] = []
    for n in range(episodes):
        item = f"claim-{n}"
        arm = "canary" if bucket(SECRET, canary, item) < share else "champion"
        chain = EpisodeChain(
            f"ep-{canary}-{n}", tenant="demo", source="loopline://bridge/rcm", clock=_ticking(start + timedelta(seconds=n))
        )  # fmt: skip
        passed = passes(arm, n)
        policy = PolicyRef(
            model=canary if arm == "canary" else "loopline-rcm",
            adapter_id=canary if arm == "canary" else None,
            route=arm,
        )
        work = WorkItem(domain="rcm", kind="denial", item_id=item, instructions="work the denial")
        datas = [
            EpisodeStarted(work_item=work, policy=policy, tools=("get_claim",), tools_hash="t" * 8,
                           system_prompt_hash="p" * 8, max_steps=10, max_seconds=60.0),
            EpisodeEnded(status="completed", steps=2, tool_calls=1, duration_ms=10.0),
            VerifierScored(task_id=None, verdict=Verdict(verifier="rcm-appeal", score=1.0 if passed else 0.0, passed=passed)),
            OutcomeObserved(kind="paid" if passed else "denied", item_id=item, observed_at=start),
        ]  # fmt: skip
        records.extend(ArchiveRecord.of(chain.append(data)) for data in datas)
    archive.append(records)


def _setup(tmp_path: Path, name: str, *, gate_passed: bool, share: float = 0.5) -> SqlEventArchive:
    gated_adapter(
        tmp_path / "state",
        name,
        passed=gate_passed,
        reasons=() if gate_passed else ("new families: no gain",),
        db_url=f"sqlite:///{tmp_path / 'release.db'}",
    )
    _adapters(tmp_path, "register", name, *([] if gate_passed else ["--force"]))
    _adapters(tmp_path, "canary", name, "--share", str(share))
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    return archive


def _trail(tmp_path: Path, name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in _adapters(tmp_path, "events", name).splitlines() if line.strip()]


def test_a_bad_adapters_production_episodes_make_the_sequential_test_roll_it_back(tmp_path: Path) -> None:
    archive = _setup(tmp_path, "cycle-bad", gate_passed=False)
    # the champion passes four episodes in five, the forced adapter one in ten
    _production_day(
        archive, "cycle-bad", 0.5, lambda arm, n: n % 5 != 0 if arm == "champion" else n % 10 == 0, 120
    )
    archive_url = f"sqlite:///{tmp_path / 'archive.db'}"
    out = _adapters(tmp_path, "observe", "--archive-url", archive_url, "--domain", "rcm")
    assert "roll_back" in out
    trail = _trail(tmp_path, "cycle-bad")
    assert [e["type"] for e in trail] == [
        "loopline.adapter.evaluated.v1", "loopline.adapter.registered.v1", "loopline.adapter.deployed.v1",
        "loopline.adapter.rolled_back.v1",
    ]  # fmt: skip
    rolled = trail[-1]["data"]
    assert isinstance(rolled, dict)
    metrics = rolled["metrics"]
    assert metrics["llr"] <= metrics["lower"]  # the test's own bound, not a time window or the pair cap
    assert metrics["canary_wins"] + metrics["champion_wins"] < 200
    again = _adapters(tmp_path, "observe", "--archive-url", archive_url)
    assert "no canary is live" in again


def test_a_good_adapter_is_promoted_by_the_test_and_each_episode_counts_once(tmp_path: Path) -> None:
    archive = _setup(tmp_path, "cycle-good", gate_passed=True)
    _production_day(
        archive, "cycle-good", 0.5, lambda arm, n: n % 2 == 0 if arm == "champion" else n % 20 != 0, 24
    )
    archive_url = f"sqlite:///{tmp_path / 'archive.db'}"
    first = _adapters(tmp_path, "observe", "--archive-url", archive_url, "--no-decide")
    assert "24 episodes counted now" in first
    again = _adapters(tmp_path, "observe", "--archive-url", archive_url, "--no-decide")
    assert "0 episodes counted now, 24 counted before" in again
    _production_day(
        archive, "cycle-good", 0.5, lambda arm, n: n % 2 == 0 if arm == "champion" else n % 20 != 0, 120
    )
    assert "promote" in _adapters(tmp_path, "observe", "--archive-url", archive_url)
    trail = _trail(tmp_path, "cycle-good")
    promoted = [e["data"] for e in trail if e["type"] == "loopline.adapter.promoted.v1"]
    assert len(promoted) == 1 and isinstance(promoted[0], dict)
    assert promoted[0]["decided_by"] == "sequential_test"
    assert "cycle-good" in _adapters(tmp_path, "list") and "champion" in _adapters(tmp_path, "list")


def test_an_episode_waits_until_a_verdict_or_an_outcome_can_judge_it() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    running = ServedEpisode("ep-1", "a", at, ended=False, verdicts={"v": True})
    unjudged = ServedEpisode("ep-2", "a", at, ended=True)
    scored = ServedEpisode("ep-3", "a", at, ended=True, verdicts={"v": True})
    contradicted = ServedEpisode("ep-4", "a", at, ended=True, verdicts={"v": True}, outcome_kinds=["denied"])
    paid_unscored = ServedEpisode("ep-5", "a", at, ended=True, outcome_kinds=["paid"])

    def judge(episode: ServedEpisode, require_outcome: bool = False) -> bool | None:
        return episode_passed(episode, domain="rcm", require_outcome=require_outcome)

    assert [judge(running), judge(unjudged), judge(scored), judge(contradicted), judge(paid_unscored)] == [
        None, None, True, False, True
    ]  # fmt: skip
    assert judge(scored, True) is None
