"""Canary routing: a configured share of work items goes to the canary, the same item always to
the same side, and every episode records the adapter that served it."""

from __future__ import annotations

from typing import Literal

from adapters import Toolbox
from bridge.runtime import EpisodeRunner
from bridge.runtime.canary import CanaryRoute, CanaryRouter, bucket
from engine import ScriptedPolicy, say
from schemas import WorkItem
from schemas.events import EpisodeStarted, PolicyRef
from tests.bridge.runtime.captured import CapturedEpisodes

SECRET = b"canary-secret-for-tests-000000"


def _policy(adapter_id: str, route: Literal["champion", "canary"]) -> ScriptedPolicy:
    ref = PolicyRef(model=adapter_id, adapter_id=adapter_id, route=route)
    return ScriptedPolicy([say("done")] * 200, ref=ref)


def test_the_canary_gets_its_share_of_work_items() -> None:
    router = CanaryRouter(
        _policy("v1", "champion"), CanaryRoute(_policy("v2", "canary"), "v2", 0.2), secret=SECRET
    )
    picked = [router.pick(f"CLM-{i}").ref.adapter_id for i in range(4000)]
    assert 0.17 < picked.count("v2") / 4000 < 0.23


def test_a_work_item_always_goes_to_the_same_side_for_one_canary() -> None:
    router = CanaryRouter(
        _policy("v1", "champion"), CanaryRoute(_policy("v2", "canary"), "v2", 0.5), secret=SECRET
    )
    first = [router.pick(f"CLM-{i}").ref.adapter_id for i in range(200)]
    again = [router.pick(f"CLM-{i}").ref.adapter_id for i in range(200)]
    assert first == again and 0 < first.count("v2") < 200


def test_each_canary_draws_its_own_sample_of_items() -> None:
    ids = [f"CLM-{i}" for i in range(400)]
    in_v2 = {i for i in ids if bucket(SECRET, "v2", i) < 0.3}
    in_v3 = {i for i in ids if bucket(SECRET, "v3", i) < 0.3}
    assert in_v2 != in_v3 and len(in_v2 & in_v3) < len(in_v2)


def test_without_a_canary_every_item_goes_to_the_champion() -> None:
    router = CanaryRouter(
        _policy("v1", "champion"), CanaryRoute(_policy("v2", "canary"), "v2", 0.5), secret=SECRET
    )
    router.set_routes(_policy("v2", "champion"), None)
    assert {router.pick(f"CLM-{i}").ref.adapter_id for i in range(100)} == {"v2"}


def test_each_episode_records_the_adapter_and_route_that_served_it(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    champion, canary = _policy("v1", "champion"), _policy("v2", "canary")
    router = CanaryRouter(champion, CanaryRoute(canary, "v2", 0.5), secret=SECRET)
    runner = EpisodeRunner(champion, toolbox, recorders, router=router)
    items = [work_item.model_copy(update={"item_id": f"C-{i}"}) for i in range(20)]
    for item in items:
        runner.run(item)
    started = [e.data for e in recorders.events if isinstance(e.data, EpisodeStarted)]
    served = {s.work_item.item_id: (s.policy.adapter_id, s.policy.route) for s in started}
    for item in items:
        expected = ("v2", "canary") if bucket(SECRET, "v2", item.item_id) < 0.5 else ("v1", "champion")
        assert served[item.item_id] == expected
    assert {adapter for adapter, _ in served.values()} == {"v1", "v2"}


def test_the_bucket_cannot_be_predicted_without_the_secret() -> None:
    ids = [f"CLM-{i}" for i in range(2000)]
    ours = [bucket(SECRET, "v2", i) < 0.5 for i in ids]
    theirs = [bucket(b"a-guess-at-the-secret-0000000", "v2", i) < 0.5 for i in ids]
    public = [bucket(b"", "v2", i) < 0.5 for i in ids]
    for guess in (theirs, public):
        agree = sum(a == b for a, b in zip(ours, guess, strict=True)) / len(ids)
        assert 0.45 < agree < 0.55  # no better than a coin


def test_a_router_refuses_a_short_secret() -> None:
    import pytest

    with pytest.raises(ValueError, match="16 bytes"):
        CanaryRouter(_policy("v1", "champion"), secret=b"short")
