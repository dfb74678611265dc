"""The release process on a real SQLite store: every step checked, stored and told as a
hash-chained event; the canary is decided by the sequential test on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemas.chain import verify_chain
from schemas.codec import from_structured
from training.release.manager import ReleaseManager
from training.release.states import ReleaseError
from training.release.store import SqlReleaseStore

pytestmark = pytest.mark.integration


def _adapter(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": 4, "name": name}))
    (folder / "adapter_model.safetensors").write_bytes(name.encode() * 10)
    return folder


@pytest.fixture
def manager(tmp_path: Path) -> ReleaseManager:
    store = SqlReleaseStore(f"sqlite:///{tmp_path / 'release.db'}")
    store.create_schema()
    return ReleaseManager(store)


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"].removeprefix("loopline.adapter.").removesuffix(".v1") for e in events]


def test_an_adapter_the_gate_stopped_is_refused_unless_forced(
    manager: ReleaseManager, tmp_path: Path
) -> None:
    folder = _adapter(tmp_path, "bad")
    with pytest.raises(ReleaseError, match="the gate stopped bad"):
        manager.register(folder, base_model="m", gate_passed=False, gate_reasons=["base dropped 96 points"])
    record = manager.register(
        folder, base_model="m", gate_passed=False, gate_reasons=["base dropped 96 points"], force=True
    )
    assert record.state == "candidate" and record.forced
    (event,) = manager.events("bad")
    assert event["data"]["forced"] and event["data"]["gate_reasons"] == ["base dropped 96 points"]


def test_registering_the_same_adapter_twice_tells_it_once(manager: ReleaseManager, tmp_path: Path) -> None:
    folder = _adapter(tmp_path, "good")
    first = manager.register(folder, base_model="m", gate_passed=True)
    again = manager.register(folder, base_model="m", gate_passed=True)
    assert first == again and len(manager.events("good")) == 1
    (folder / "adapter_model.safetensors").write_bytes(b"other weights")
    with pytest.raises(ReleaseError, match="other files"):
        manager.register(folder, base_model="m", gate_passed=True)


def test_a_served_name_is_never_reused_for_another_adapter(manager: ReleaseManager, tmp_path: Path) -> None:
    manager.register(_adapter(tmp_path, "a"), base_model="m", gate_passed=True, served_name="rcm-v1")
    with pytest.raises(ReleaseError, match="never reused"):
        manager.register(_adapter(tmp_path, "b"), base_model="m", gate_passed=True, served_name="rcm-v1")


def test_a_good_canary_is_promoted_by_the_test_and_the_old_champion_retired(
    manager: ReleaseManager, tmp_path: Path
) -> None:
    manager.register(_adapter(tmp_path, "v1"), base_model="m", gate_passed=True)
    manager.deploy_canary("v1", 0.5)
    manager.promote("v1")  # an operator makes the first champion
    manager.register(_adapter(tmp_path, "v2"), base_model="m", gate_passed=True)
    manager.deploy_canary("v2", 0.3)
    assert manager.routing().canary_share == 0.3
    for i in range(20):
        manager.observe(f"ep-c{i}", "v2", passed=True, route="canary")
        manager.observe(f"ep-h{i}", "v1", passed=i % 2 == 0, route="champion")
    result = manager.decide("v2")
    assert result.decision == "promote"
    routing = manager.routing()
    assert routing.champion is not None and routing.champion.adapter_id == "v2" and routing.canary is None
    assert manager.store.get("v1").state == "retired"  # type: ignore[union-attr]
    trail = manager.events("v2")
    assert _types(trail) == ["registered", "deployed", "promoted", "deployed"]
    promoted = trail[2]["data"]
    assert promoted["decided_by"] == "sequential_test" and promoted["previous_champion_id"] == "v1"
    assert promoted["evidence"]["canary_wins"] >= 5 and verify_chain(trail) is None
    for doc in trail:
        from_structured(doc)  # every event meets its published schema


def test_a_bad_canary_is_rolled_back_by_the_test_and_the_champion_keeps_serving(
    manager: ReleaseManager, tmp_path: Path
) -> None:
    manager.register(_adapter(tmp_path, "v1"), base_model="m", gate_passed=True)
    manager.deploy_canary("v1", 0.5)
    manager.promote("v1")
    manager.register(_adapter(tmp_path, "bad"), base_model="m", gate_passed=False, force=True)
    manager.deploy_canary("bad", 0.2)
    decisions = []
    for i in range(30):
        manager.observe(f"c{i}", "bad", passed=False, route="canary")
        manager.observe(f"h{i}", "v1", passed=True, route="champion")
        if manager.store.get("bad").state == "canary":  # type: ignore[union-attr]
            decisions.append(manager.decide("bad").decision)
    assert decisions[-1] == "roll_back" and set(decisions[:-1]) <= {"continue"}
    assert manager.store.get("bad").state == "rolled_back"  # type: ignore[union-attr]
    assert manager.routing().champion.adapter_id == "v1"  # type: ignore[union-attr]
    rolled = manager.events("bad")[-1]
    assert rolled["type"] == "loopline.adapter.rolled_back.v1"
    assert (
        rolled["data"]["restored_adapter_id"] == "v1"
        and "worse than the champion" in rolled["data"]["reason"]
    )
    assert rolled["data"]["metrics"]["champion_wins"] == len(decisions)


def test_episodes_are_counted_once_and_only_for_the_arms_under_test(
    manager: ReleaseManager, tmp_path: Path
) -> None:
    assert not manager.observe("e0", "x", passed=True, route="canary")  # no canary yet
    manager.register(_adapter(tmp_path, "c"), base_model="m", gate_passed=True)
    manager.deploy_canary("c", 0.1)
    assert manager.observe("e1", "c", passed=True, route="canary")
    assert not manager.observe("e1", "c", passed=True, route="canary")
    assert manager.observe("e2", None, passed=False, route="champion")  # the base model is the champion
    assert not manager.observe("e3", "someone-else", passed=True, route="canary")
    # an outside agent's episode, or one whose route and adapter disagree, is no arm's evidence
    assert not manager.observe("e4", None, passed=True, route="external")
    assert not manager.observe("e5", "c", passed=True, route="champion")
    assert not manager.observe("e6", None, passed=True, route="canary")
    assert manager.store.observations("c") == ([True], [False])


def test_rolling_back_a_champion_restores_the_one_it_replaced(
    manager: ReleaseManager, tmp_path: Path
) -> None:
    for name in ("v1", "v2"):
        manager.register(_adapter(tmp_path, name), base_model="m", gate_passed=True)
        manager.deploy_canary(name, 0.5)
        manager.promote(name)
    manager.roll_back("v2", reason="complaints from the billing office")
    assert manager.routing().champion.adapter_id == "v1"  # type: ignore[union-attr]
    assert manager.events("v2")[-1]["data"]["restored_adapter_id"] == "v1"


def test_steps_out_of_order_are_refused_with_the_reason(manager: ReleaseManager, tmp_path: Path) -> None:
    manager.register(_adapter(tmp_path, "a"), base_model="m", gate_passed=True)
    with pytest.raises(ReleaseError, match="candidate: it can move to canary, retired, not champion"):
        manager.promote("a")
    with pytest.raises(ReleaseError, match="strictly between"):
        manager.deploy_canary("a", 1.0)
    manager.deploy_canary("a", 0.2)
    manager.register(_adapter(tmp_path, "b"), base_model="m", gate_passed=True)
    with pytest.raises(ReleaseError, match="already the canary"):
        manager.deploy_canary("b", 0.2)
    with pytest.raises(ReleaseError, match="no adapter 'zzz'"):
        manager.decide("zzz")
