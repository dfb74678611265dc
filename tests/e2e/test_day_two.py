"""The improvement stage's second day goes through production (`loopline.demo.day_two`): on the real
broker and streams worker, each case is worked by the bridge against the sandbox holding its task's
world, routed by the release router (sticky, keyed by the canary secret), judged by the bridge's
scorer with the verdict its task's sim rollout gives, its billing outcome joins through the webhook,
and `loopline adapters observe` counts every episode once for the arm it was routed to."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from adapters.serving import serve_in_thread
from bridge.runtime.canary import bucket
from bridge.store import SqlEventArchive
from engine import ScriptedPolicy, say
from envs.domain import DOMAINS
from envs.rcm.tasks import generate_base, generate_edge
from loopline.demo.day_two import SOURCE, Production, serve_day
from loopline.demo.worker import streams_worker
from loopline.kafka.topics import ensure_topics
from loopline.release.observe import served_episodes
from loopline.streams.event_keys import ensure_keys
from schemas.events import PolicyRef
from tests.conftest import StackHandle
from tests.loopline.gated import live_canary
from training.evaluate import run_suite
from training.serve.access import AccessKeys
from training.serve.app import create_app

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

KEYS = AccessKeys(serving="day-two-serving-key-000", release="day-two-release-key-000")
SECRET = "day-two-canary-secret-0000000000"
CASES = 10


def _done() -> ScriptedPolicy:
    """A model that closes every episode at once with a message (it passes no case)."""
    return ScriptedPolicy(
        lambda _messages: say("Reviewed; nothing to do."), ref=PolicyRef(model="done", route="scripted")
    )


def test_the_second_day_is_routed_scored_answered_and_counted_through_production(
    stack: StackHandle, unique_topic: str, tmp_path: Path
) -> None:
    topic, dlq, anchors = (f"{unique_topic}.{kind}.v1" for kind in ("events", "dlq", "checkpoints"))
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq, anchors], partitions=2)
    ensure_keys(tmp_path / "keys")
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    vocabulary = tmp_path / "vocabulary.json"
    demo = DOMAINS.get("rcm").demo
    assert demo is not None
    vocabulary.write_text(json.dumps(demo.vocabulary()))
    release_url, state = f"sqlite:///{tmp_path / 'release.db'}", tmp_path / "state"
    store, registered = live_canary(state, release_url, "cycle-1")

    edge = {t.task_id: t for t in generate_edge(0, per_kind=1)}
    faulty, bulletin = edge["rcm-edge-tool_error-000"], edge["rcm-edge-rule_change_midqueue-000"]
    tasks = [*generate_base(0, per_carc=1)[: CASES - 1], faulty]
    production = Production(
        kafka=stack.kafka, topic=topic, db_url=db_url, keys=tmp_path / "keys",
        checkpoints=tmp_path / "checkpoints", checkpoint_topic=anchors,
        streams_worker=lambda: streams_worker(tmp_path, stack.kafka, db_url, topic, vocabulary),
    )  # fmt: skip
    policy = create_app(lambda _a, _n: _done(), "champion-base", keys=KEYS, adapter_root=state / "adapters",
                        registered=registered)  # fmt: skip
    with serve_in_thread(policy, name="policy") as policy_url:
        load = {"lora_name": "rcm-cycle-1", "lora_path": "cycle-1"}
        loaded = httpx.post(
            f"{policy_url}/v1/load_lora_adapter",
            json=load,
            headers={"Authorization": f"Bearer {KEYS.release}"},
        )
        assert loaded.status_code == 200, loaded.text
        served = serve_day(
            [*tasks, bulletin], production=production, workdir=tmp_path / "day", policy_url=policy_url,
            serving_key=KEYS.serving, base_name="champion-base", release_db_url=release_url,
            release_state=state, canary_secret=SECRET, canary_id="cycle-1",
        )  # fmt: skip

    day = served.episodes
    assert [e.task.task_id for e in day] == [t.task_id for t in tasks]  # every case, scored, in order
    assert served.left_off == [(bulletin.task_id, "a payer bulletin published while the case is worked")]
    arms = {e.task.work_item.item_id: e.route for e in day}
    assert arms == {
        t.work_item.item_id: "canary"
        if bucket(SECRET.encode(), "cycle-1", t.work_item.item_id) < 0.5
        else "champion"
        for t in tasks
    }
    assert {e.adapter_id for e in day if e.route == "canary"} <= {"cycle-1"}
    assert {e.adapter_id for e in day if e.route == "champion"} == {None}
    # the production verdict is the one the task's sim rollout of the same model gives
    sim = run_suite(_done(), "sim", tasks, [0])
    assert [e.passed for e in day] == [t.passed for t in sim.trials]

    episodes = served_episodes(SqlEventArchive(db_url).iter_streams())
    for e in day:
        recorded = episodes[e.episode_id]
        assert recorded.source == SOURCE and recorded.ended and recorded.verdicts
        assert recorded.outcome_kinds == ["approved" if e.passed else "rejected"]
    canary, champion = store.observations("cycle-1")
    assert (len(canary), len(champion)) == (
        sum(e.route == "canary" for e in day),
        sum(e.route == "champion" for e in day),
    )
