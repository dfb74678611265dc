"""The credit demo's data: a queue over every recipe and edge family, the vocabulary that makes an
unseen currency an edge case, the compliance certificates that follow a decision, and the bridge
wired for the credit domain."""

from __future__ import annotations

from adapters.credit.tools import ESCALATE, RECORD
from adapters.credit.work_items import work_item_problem
from envs.credit.cases import BASE, EDGE
from envs.credit.demo import breaches, later_outcome, queue_world, training_vocabulary, work_queue
from envs.domain import DOMAINS
from schemas import WorkItem


def test_the_queue_holds_one_package_per_recipe_and_edge_family_with_pdf_tables_among_them() -> None:
    world = queue_world()
    items = work_queue(world)
    assert len(items) == len(world.packages) == len(BASE) + len(EDGE) == 22
    assert all(work_item_problem(item) is None for item in items)
    sources = {p.source for package in world.packages.values() for p in package.periods}
    assert sources == {"workbook", "pdf_table"}


def test_the_vocabulary_comes_from_training_so_a_queued_foreign_currency_is_unseen() -> None:
    vocabulary = training_vocabulary()
    queued = {p.borrower.reporting_currency for p in queue_world().packages.values()}
    assert "USD" in vocabulary["currency"]
    assert queued - set(vocabulary["reporting_currency"])  # the currency-mismatch package


def test_a_recorded_decision_gets_a_compliance_certificate_and_nothing_else_does() -> None:
    items = work_queue(queue_world())
    outcomes = [later_outcome("e", item, ["get_package", "record_recommendation"]) for item in items]
    kinds = {o.kind for o in outcomes if o is not None}
    assert kinds == {"covenant_breach", "compliance_certificate"}
    assert all(o is not None and (o.kind == "covenant_breach") == breaches(o.item_id) for o in outcomes)
    assert later_outcome("e", items[0], ["get_package", ESCALATE]) is None


def test_the_bridge_serves_the_credit_domain_with_its_own_hand_off_and_decision_tools() -> None:
    domain = DOMAINS.get("credit").tool
    assert domain.rules.escalate_tool == ESCALATE and domain.rules.terminal_tools == {RECORD}
    assert {spec.name for spec in domain.tools} >= {RECORD, ESCALATE, "get_financial_statements"}
    rcm_item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1", instructions="work it", payload={})
    assert domain.work_item_problem(rcm_item) == "this bridge works domain 'credit' only, not domain 'rcm'"
    no_id = rcm_item.model_copy(update={"domain": "credit", "kind": "credit_package"})
    assert "payload.package_id" in (domain.work_item_problem(no_id) or "")


def test_a_credit_bridge_records_under_its_own_source_and_asks_for_its_own_model() -> None:
    from loopline.bridge.settings import BridgeSettings

    credit = BridgeSettings(domain="credit")
    assert (credit.source, credit.policy_model) == ("loopline://bridge/credit", "loopline-credit")
    assert BridgeSettings().source == "loopline://bridge/rcm"
    assert (
        BridgeSettings(domain="credit", source="loopline://bridge/fund-a").source
        == "loopline://bridge/fund-a"
    )
