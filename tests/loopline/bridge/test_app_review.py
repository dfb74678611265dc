"""`loopline bridge serve` serves the review desk when it is given a Temporal address: the bridge
process wires the draft store and the Temporal review desk; without an address the review routes
say there are no drafts here; with an address nothing answers at, it refuses to start."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError
from temporalio.testing import WorkflowEnvironment

from adapters.drafting.store import DraftStore, PromotionStatus
from adapters.serving import serve_in_thread
from loopline.bridge.app import ReviewUnavailable, build_bridge, review_services
from loopline.bridge.settings import BridgeSettings
from loopline.kafka.settings import KafkaSettings
from loopline.streams.event_keys import ensure_keys, role_file
from workflows.promotion.client import TemporalReviewDesk

REVIEWER = {"Authorization": "Bearer dev-reviewer-token"}


def settings(tmp_path: Path, **extra: object) -> BridgeSettings:
    ensure_keys(tmp_path / "keys")
    return BridgeSettings(
        state_dir=tmp_path / "bridge", db_url=f"sqlite:///{tmp_path / 'archive.db'}", relay_process=False,
        kafka=KafkaSettings(bootstrap_servers="127.0.0.1:1"), drafts_dir=tmp_path / "drafts",
        event_keys_file=role_file("bridge", tmp_path / "keys"), **extra,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_bridge_settings_refuse_a_temporal_address_that_is_not_host_and_port(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="temporal_address"):
        settings(tmp_path, temporal_address="temporal without a port")


def test_without_a_temporal_address_the_review_routes_say_this_bridge_has_no_drafts(tmp_path: Path) -> None:
    assert review_services(settings(tmp_path)) is None
    bridge = build_bridge(settings(tmp_path))
    try:
        with serve_in_thread(bridge.app(), name="bridge-no-review") as url:
            listed = httpx.get(f"{url}/v1/review/drafts", headers=REVIEWER)
            shown = httpx.get(f"{url}/v1/review/drafts/draft-1", headers=REVIEWER)
    finally:
        bridge.close()
    assert listed.status_code == 200 and listed.json() == []
    assert shown.status_code == 404
    assert "LOOPLINE_BRIDGE_TEMPORAL_ADDRESS" in shown.json()["detail"]


def test_a_bridge_told_to_serve_review_does_not_start_when_temporal_does_not_answer(tmp_path: Path) -> None:
    with pytest.raises(ReviewUnavailable, match=r"127\.0\.0\.1:1: Temporal does not answer"):
        build_bridge(settings(tmp_path, temporal_address="127.0.0.1:1"))


async def test_with_a_temporal_address_the_bridge_serves_the_drafts_the_worker_stored(
    tmp_path: Path, temporal_env: WorkflowEnvironment
) -> None:
    address = temporal_env.client.service_client.config.target_host
    store = DraftStore(tmp_path / "drafts")
    store.put_status(
        PromotionStatus(
            draft_id="draft-1",
            workflow_id="promote-x",
            fingerprint="f" * 32,
            stage="refused",
            updated_at=datetime.now(UTC),
        )
    )
    bridge = build_bridge(settings(tmp_path, temporal_address=address))
    try:
        assert bridge.services.review is not None
        assert isinstance(bridge.services.review.desk, TemporalReviewDesk)
        with serve_in_thread(bridge.app(), name="bridge-review") as url:
            async with httpx.AsyncClient(base_url=url, headers=REVIEWER) as client:
                every = (await client.get("/v1/review/drafts", params={"all": "true"})).json()
                page = await client.get("/review", follow_redirects=False)
    finally:
        bridge.close()
    assert [row["status"]["draft_id"] for row in every] == ["draft-1"]
    assert page.status_code == 303 and page.headers["location"] == "/review/login"
