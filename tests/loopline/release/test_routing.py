"""A running bridge follows the release store: `loopline adapters canary | promote | rollback`
change which adapter serves its next episodes, without a restart, and each episode's policy says
which adapter and route served it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.cli import app
from loopline.kafka.settings import KafkaSettings
from loopline.release.routing import ReleaseRouter
from loopline.streams.event_keys import ensure_keys, role_file
from tests.loopline.gated import gated_adapter

pytestmark = pytest.mark.integration

ITEMS = [f"claim-{n}" for n in range(400)]


def _settings(tmp_path: Path, **extra: object) -> BridgeSettings:
    ensure_keys(tmp_path / "keys")
    return BridgeSettings(
        state_dir=tmp_path / "bridge", db_url=f"sqlite:///{tmp_path / 'archive.db'}", relay_process=False,
        kafka=KafkaSettings(bootstrap_servers="127.0.0.1:1"), drafts_dir=tmp_path / "drafts",
        release_verify_fingerprints=False,
        event_keys_file=role_file("bridge", tmp_path / "keys"), **extra,  # type: ignore[arg-type]
    )  # fmt: skip


def _adapters(state: Path, db_url: str, *args: str) -> None:
    result = CliRunner().invoke(app, ["adapters", *args, "--state", str(state), "--db-url", db_url])
    assert result.exit_code == 0, result.output


def _served(router: ReleaseRouter) -> dict[tuple[str, str | None, str], int]:
    router.refresh(force=True)
    counts: dict[tuple[str, str | None, str], int] = {}
    for item in ITEMS:
        ref = router.pick(item).ref
        key = (ref.model, ref.adapter_id, ref.route)
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_a_running_bridge_routes_by_the_release_store_as_operators_change_it(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'release.db'}"
    state = tmp_path / "state"
    gated_adapter(state, "cycle-1", db_url=db_url)
    _adapters(state, db_url, "register", "cycle-1", "--served-name", "rcm-cycle-1")
    bridge = build_bridge(_settings(tmp_path, policy="openai", release_db_url=db_url, release_check_s=0.01))
    try:
        router = bridge.services.runner.router
        assert isinstance(router, ReleaseRouter)
        assert _served(router) == {("loopline-rcm", None, "champion"): len(ITEMS)}

        _adapters(state, db_url, "canary", "cycle-1", "--share", "0.25")
        canary_share = _served(router)
        on_canary = canary_share[("rcm-cycle-1", "cycle-1", "canary")]
        assert 0.15 * len(ITEMS) < on_canary < 0.35 * len(ITEMS)
        assert canary_share[("loopline-rcm", None, "champion")] == len(ITEMS) - on_canary
        assert _served(router) == canary_share  # sticky per work item

        _adapters(state, db_url, "promote", "cycle-1", "--reason", "looks good")
        assert _served(router) == {("rcm-cycle-1", "cycle-1", "champion"): len(ITEMS)}

        _adapters(state, db_url, "rollback", "cycle-1", "--reason", "complaints")
        assert _served(router) == {("loopline-rcm", None, "champion"): len(ITEMS)}
    finally:
        bridge.close()


def test_the_router_looks_at_the_store_no_more_often_than_its_check_interval(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'release.db'}"
    state = tmp_path / "state"
    gated_adapter(state, "cycle-1", db_url=db_url)
    _adapters(state, db_url, "register", "cycle-1")
    bridge = build_bridge(_settings(tmp_path, policy="openai", release_db_url=db_url, release_check_s=3600))
    try:
        router = bridge.services.runner.router
        assert isinstance(router, ReleaseRouter)
        _adapters(state, db_url, "canary", "cycle-1", "--share", "0.5")
        assert router.pick("claim-1").ref.route == "champion"
        before = router.key
        assert router.refresh(force=True)
        assert (before, router.key) == ((None, None, 0.0), (None, "cycle-1", 0.5))
    finally:
        bridge.close()


def test_release_routing_without_a_served_policy_is_refused_with_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="LOOPLINE_BRIDGE_POLICY=openai"):
        _settings(tmp_path, release_db_url=f"sqlite:///{tmp_path / 'release.db'}")
