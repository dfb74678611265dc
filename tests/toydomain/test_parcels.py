"""The parcel desk, a domain that lives only in this folder, runs through the generic machinery:
its task set validates and rolls out through `loopline envs`, and the generic sandbox and live
backend serve it with the same answers as its sim."""

from __future__ import annotations

from importlib.metadata import EntryPoint

from typer.testing import CliRunner

from adapters.sandbox import SandboxBase, create_sandbox_app
from adapters.serving import serve_in_thread
from adapters.toolbox import Toolbox
from envs.domain import ENTRY_POINT_GROUP, DomainRegistry
from loopline.commands.envs import app
from schemas.tools import ToolOutcome
from tests.toydomain import DOMAIN
from tests.toydomain.tasks import make_tasks
from tests.toydomain.tools import SANDBOX, TOOLS, LiveBackend, SandboxAdmin
from tests.toydomain.world import ParcelWorld

runner = CliRunner()


def test_the_generated_parcels_cover_every_move_of_the_desk() -> None:
    assert {task.tags[0] for task in make_tasks(12)} == {"kind:reship", "kind:refund", "kind:escalate"}


def test_every_gold_solution_scores_full_reward_through_envs_validate() -> None:
    result = runner.invoke(app, ["validate", "-t", "parcels", "--by", "kind"])
    assert result.exit_code == 0, result.output
    assert "every gold solution scores 1.0 and doing nothing scores 0" in result.output


def test_the_reference_plan_rolls_out_to_a_full_pass_rate() -> None:
    result = runner.invoke(app, ["rollout", "-p", "reference", "-t", "parcels", "--by", "kind"])
    assert result.exit_code == 0, result.output
    assert "100.0%" in result.output and "pass rate" in result.output


def test_the_generic_sandbox_and_live_backend_answer_as_the_sim_does() -> None:
    config = SandboxBase(admin_token="parcel-desk-admin-token")
    with serve_in_thread(create_sandbox_app(SANDBOX, config), name="parcels-sandbox") as url:
        admin, live = SandboxAdmin(url, config.admin_token), LiveBackend(url, timeout_s=5)
        try:
            for task in make_tasks(12):
                admin.load(ParcelWorld.from_snapshot(dict(task.initial_world)))
                sim = Toolbox(TOOLS, DOMAIN.make_backend(task.initial_world, seed=0))
                served = Toolbox(TOOLS, live)
                for call in task.gold_solution:
                    here, there = sim.call(call), served.call(call)
                    assert there.outcome is ToolOutcome.OK, there.error
                    assert here.result == there.result
            refused = served.call(task.gold_solution[1].model_copy(update={"call_id": "again"}))
            assert refused.outcome is ToolOutcome.FAILED and refused.error is not None
            assert refused.error.kind == "domain" and refused.error.details["code"] == "not_open"
        finally:
            admin.close()
            live.close()


def test_one_entry_point_line_is_all_the_registry_needs_to_find_the_domain() -> None:
    line = EntryPoint(name="parcels", value="tests.toydomain:DOMAIN", group=ENTRY_POINT_GROUP)
    registry = DomainRegistry([line])
    assert registry.names() == ["parcels"] and registry.get("parcels") is DOMAIN
