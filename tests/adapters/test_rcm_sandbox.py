"""The sandbox app in-process: SQLite persistence, write-through of changed rows only, admin
routes, and start-up configuration of payer rules and limits."""

from __future__ import annotations

from pathlib import Path

import httpx

from adapters.rcm import World, apply, seed_world
from adapters.rcm import args as a
from adapters.rcm.models import PayerRules
from adapters.rcm.sandbox import SandboxConfig, create_app
from adapters.rcm.sandbox.store import SqlWorldStore
from tests.adapters.sql_writes import record_writes


def _client(config: SandboxConfig) -> httpx.AsyncClient:
    """The app in-process (ASGI), no socket: the wire format, routing and store are all real."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(config)),
        base_url="http://sandbox",
        headers={"Authorization": f"Bearer {config.admin_token}"},
    )


ESCALATION = {"queue": "credentialing", "recommended_action": "review", "reason": "not certified with MCR"}


async def test_world_survives_a_sandbox_restart_on_the_same_database(tmp_path: Path) -> None:
    config = SandboxConfig(db_url=f"sqlite:///{tmp_path / 'rcm.db'}")
    async with _client(config) as client:
        assert (await client.post("/claims/CLM-1021/escalations", json=ESCALATION)).status_code == 200
    async with _client(config) as client:
        world = World.model_validate((await client.get("/admin/world")).json())
        assert list(world.escalations) == ["ESC-00001"] and world.counters == {"escalation": 1}
    async with _client(config.model_copy(update={"reset": True})) as client:
        assert World.model_validate((await client.get("/admin/world")).json()) == seed_world()


def test_store_writes_only_the_rows_a_step_changed(tmp_path: Path) -> None:
    store = SqlWorldStore(f"sqlite:///{tmp_path / 'rcm.db'}")
    store.replace(seed_world())
    writes = record_writes(store.engine)
    escalate = a.EscalateArgs(
        claim_id="CLM-1021",
        queue="credentialing",
        recommended_action="review",
        reason="not certified with Medicare",
    )
    _, new = apply(store.world, "escalate_to_human", escalate)
    store.commit(new)
    statements = [f"UPDATE {w[1]}" if w[0] == "UPDATE" else f"{w[0]} {w[2]}" for w in writes]
    # the escalation, the counters
    assert sorted(statements) == ["INSERT sandbox_entity", "UPDATE sandbox_meta"]
    assert store.load() == new


async def test_admin_routes_load_snapshot_and_reset(tmp_path: Path) -> None:
    async with _client(SandboxConfig()) as client:
        later = seed_world().model_copy(update={"today": seed_world().today.replace(year=2026)})
        assert (
            await client.put(
                "/admin/world", content=later.model_dump_json(), headers={"content-type": "application/json"}
            )
        ).status_code == 200
        assert (await client.get("/health")).json()["today"] == "2026-06-16"
        assert World.model_validate((await client.get("/admin/world")).json()) == later
        await client.post("/admin/reset")
        assert (await client.get("/health")).json()["today"] == "2025-06-16"
        assert (await client.put("/admin/payers/NOPE/rules", json={})).status_code == 404


async def test_a_rule_period_beyond_the_calendar_is_refused_at_the_admin_route_not_at_a_later_tool_call() -> (
    None
):
    # found by bench/fuzz_api.py: an appeal window of 10**20 days was accepted, then every appeal
    # under that payer answered 500 (the deadline overflowed the calendar)
    async with _client(SandboxConfig()) as client:
        payer_id = next(iter(seed_world().payers))
        put = await client.put(f"/admin/payers/{payer_id}/rules", json={"appeal_window_days": 10**20})
        assert put.status_code == 422
        assert "appeal_window_days" in put.text
        assert (await client.get("/admin/world")).json()["payers"][payer_id]["rules"][
            "appeal_window_days"
        ] == 120


async def test_startup_config_overrides_payer_rules_and_the_write_off_limit() -> None:
    config = SandboxConfig(
        payer_rules={"MCR": PayerRules(appeal_window_days=200)}, write_off_approval_limit=2000
    )
    async with _client(config) as client:
        appeal = {
            "basis": "medical_necessity",
            "reason": "records support it, see notes",
            "attachment_document_ids": [],
        }
        assert (await client.post("/claims/CLM-1023/appeals", json=appeal)).status_code == 200
        write_off = {"amount": 1250.0, "reason_code": "no_authorization"}
        assert (await client.post("/claims/CLM-1005/write-offs", json=write_off)).status_code == 200


async def test_world_file_seeds_the_sandbox(tmp_path: Path) -> None:
    world = seed_world()
    _, changed = apply(
        world, "close_claim", a.CloseClaimArgs(claim_id="CLM-1008", reason="duplicate_of_paid_original")
    )
    path = tmp_path / "world.json"
    path.write_text(changed.model_dump_json())
    async with _client(SandboxConfig(world_path=str(path))) as client:
        assert (await client.get("/claims/CLM-1008")).json()["claim"]["work_status"] == "closed"


async def test_bad_request_bodies_are_answered_not_crashed() -> None:
    async with _client(SandboxConfig()) as client:
        not_json = await client.post(
            "/claims/CLM-1021/escalations", content=b"{oops", headers={"content-type": "application/json"}
        )
        assert not_json.status_code == 400 and not_json.json()["error"]["kind"] == "validation"
        a_list = await client.post("/claims/CLM-1021/escalations", json=[1, 2])
        assert a_list.status_code == 400
        no_era = await client.get("/era/835", params={"claim_id": "CLM-404"})
        assert no_era.status_code == 404 and no_era.json()["error"]["details"]["code"] == "unknown_claim"


async def test_the_admin_routes_need_the_admin_token_and_the_tool_routes_do_not() -> None:
    config = SandboxConfig(admin_token="a-sandbox-admin-token")
    app = create_app(config)
    for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sandbox", headers=headers
        ) as client:
            for method, path in (("GET", "/admin/world"), ("POST", "/admin/reset"), ("PUT", "/admin/faults")):
                answer = await client.request(method, path, json={})
                assert answer.status_code == 401 and "admin bearer token" in answer.json()["detail"]
            assert (await client.post("/claims/CLM-1021/escalations", json=ESCALATION)).status_code == 200
    assert SandboxConfig().admin_token != SandboxConfig().admin_token  # a fresh random one each time
