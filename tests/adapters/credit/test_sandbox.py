"""The credit sandbox in-process (ASGI, real SQLite): persistence across restarts, documents served
as the borrower sent them, admin routes behind the token, and refusals as typed errors."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from adapters.credit.documents.periods import TEXT_MEDIA_TYPE, XLSX_MEDIA_TYPE, read_period_document
from adapters.credit.sandbox import SandboxConfig, create_app, seed_world
from adapters.credit.world import World

TOKEN = "test-credit-sandbox-admin-token"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}
RECOMMENDATION = {
    "decision": "decline",
    "figures": {"adjusted_ebitda": -1.2e6, "total_leverage": -12.5, "senior_leverage": -12.5,
                "interest_coverage": -5.0, "fixed_charge_coverage": -6.0, "dscr": -6.0, "liquidity": 6.5e6},
    "conditions": [],
    "memo": "Negative adjusted EBITDA of -1.2m: declined under fund policy.",
}  # fmt: skip


def _client(config: SandboxConfig) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(config)), base_url="http://sandbox")


async def test_the_world_survives_a_restart_on_the_same_database(tmp_path: Path) -> None:
    config = SandboxConfig(db_url=f"sqlite:///{tmp_path / 'deals.db'}", admin_token=TOKEN)
    async with _client(config) as client:
        response = await client.post("/packages/PKG-1006/recommendations", json=RECOMMENDATION)
        assert response.status_code == 200, response.text
    async with _client(config) as client:
        world = World.model_validate((await client.get("/admin/world", headers=ADMIN)).json())
        assert list(world.recommendations) == ["REC-1"] and world.packages["PKG-1006"].status == "recommended"
    async with _client(config.model_copy(update={"reset": True})) as client:
        assert World.model_validate((await client.get("/admin/world", headers=ADMIN)).json()) == seed_world()


@pytest.mark.parametrize(
    ("package_id", "period", "media_type"),
    [("PKG-1001", "FY2024", XLSX_MEDIA_TYPE), ("PKG-1002", "2025Q3", TEXT_MEDIA_TYPE)],
)
async def test_a_period_is_served_as_the_document_the_borrower_sent(
    package_id: str, period: str, media_type: str
) -> None:
    async with _client(SandboxConfig(admin_token=TOKEN)) as client:
        response = await client.get(f"/packages/{package_id}/periods/{period}/statements")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media_type)
    want = next(p for p in seed_world().packages[package_id].periods if p.label == period)
    assert read_period_document(response.content, response.headers["content-type"]) == want


async def test_admin_routes_refuse_a_caller_without_the_token() -> None:
    async with _client(SandboxConfig(admin_token=TOKEN)) as client:
        assert (await client.get("/admin/world")).status_code == 401
        wrong = {"Authorization": "Bearer not-the-sandbox-token"}
        assert (await client.post("/admin/reset", headers=wrong)).status_code == 401
        assert (await client.put("/admin/fund-policy", json={}, headers=wrong)).status_code == 401


async def test_a_fund_policy_change_at_runtime_is_what_the_tool_reads() -> None:
    async with _client(SandboxConfig(admin_token=TOKEN)) as client:
        policy = (await client.get("/fund-policy")).json()["policy"]
        changed = {**policy, "escalate_total_leverage": 5.5}
        assert (await client.put("/admin/fund-policy", json=changed, headers=ADMIN)).status_code == 200
        assert (await client.get("/fund-policy")).json()["policy"]["escalate_total_leverage"] == 5.5


async def test_refusals_and_bad_bodies_are_typed_errors() -> None:
    async with _client(SandboxConfig(admin_token=TOKEN)) as client:
        unknown = await client.get("/packages/PKG-9/periods/FY2024/statements")
        assert unknown.status_code == 404 and unknown.json()["error"]["details"]["code"] == "unknown_package"
        bad = await client.post("/packages/PKG-1001/recommendations", json={"decision": "maybe"})
        assert bad.status_code == 422 and bad.json()["error"]["kind"] == "validation"
        not_json = await client.post("/packages/PKG-1001/recommendations", content=b"[1, 2]")
        assert not_json.status_code == 400


def test_the_store_writes_only_the_rows_a_step_changed(tmp_path: Path) -> None:
    from adapters.credit import args as a
    from adapters.credit.logic import apply
    from adapters.credit.sandbox.store import SqlWorldStore
    from tests.adapters.sql_writes import record_writes

    store = SqlWorldStore(f"sqlite:///{tmp_path / 'deals.db'}")
    store.replace(seed_world())
    writes = record_writes(store.engine)
    args = a.RecordRecommendationArgs.model_validate({"package_id": "PKG-1006", **RECOMMENDATION})
    _, world = apply(store.world, "record_recommendation", args)
    store.commit(world)
    statements = [" ".join(words[:3]) for words in writes]
    assert sorted(statements) == [
        "INSERT INTO sandbox_entity",  # the recommendation
        "UPDATE sandbox_entity SET",  # the package's status
        "UPDATE sandbox_meta SET",  # the counters
    ]
    assert SqlWorldStore(f"sqlite:///{tmp_path / 'deals.db'}").load() == world


async def test_a_period_no_statement_can_print_is_served_as_json() -> None:
    from adapters.credit.results import FinancialStatementsResult

    world = seed_world()
    package = world.packages["PKG-1001"]
    odd = package.periods[0].model_copy(
        update={"income": package.periods[0].income.model_copy(update={"revenue": 1_234_567.5})}
    )
    changed = package.model_copy(update={"periods": (odd, *package.periods[1:])})
    world = world.model_copy(update={"packages": {**world.packages, "PKG-1001": changed}})
    app = create_app(SandboxConfig(admin_token=TOKEN), world)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as client:
        response = await client.get(f"/packages/PKG-1001/periods/{odd.label}/statements")
    assert response.headers["content-type"].startswith("application/json")
    assert FinancialStatementsResult.model_validate_json(response.content).period == odd
