"""What the credit demo does, as data: its package queue, the deal system's faults and document
damage, the detector's vocabulary, and the compliance certificates that arrive later. Pure.

The queue is the fund's pipeline: one package of every base recipe and of every held-out edge
family (`envs.credit`, from a seed no training set uses), with some periods arriving as PDF tables.
The vocabulary is what the training tasks (`credit-base`) contain, so a reporting currency, a
covenant or an add-back category training never had is reported as an edge case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from decimal import Decimal

from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.models import CreditPackage
from adapters.credit.world import World
from adapters.faults import FaultConfig, FaultRule
from envs.credit.tasks import generate_base, generate_edge, work_item
from envs.demo import DemoScenario, PlannedOutcome, vocabulary_of
from schemas import Task, WorkItem

QUEUE_SEED = 11
"""Seed of the demo's packages; the training sets are drawn from seed 0."""

VOCABULARY_FIELDS = ("currency", "reporting_currency", "category", "metric", "seniority")
"""Currencies, add-back categories, covenant metrics and debt seniorities: a value no training
package holds is something the analyst was never trained on."""


def queue_world() -> World:
    """The deal system's world for the demo: every queued package, some periods as PDF tables."""
    tasks = generate_base(seed=QUEUE_SEED, per_recipe=1) + generate_edge(seed=QUEUE_SEED, per_kind=1)
    worlds = [World.model_validate(task.initial_world) for task in tasks]
    packages: dict[str, CreditPackage] = {}
    for n, world in enumerate(worlds):
        for package in world.packages.values():
            packages[package.package_id] = _as_delivered(package, n)
    return worlds[0].model_copy(update={"packages": packages})


def _as_delivered(package: CreditPackage, n: int) -> CreditPackage:
    """Every other package's quarters as PDF tables (scanned management accounts)."""
    if n % 2 == 0:
        return package
    periods = tuple(
        p.model_copy(update={"source": "pdf_table"}) if p.kind == "Q" else p for p in package.periods
    )
    return package.model_copy(update={"periods": periods})


def work_queue(world: World) -> list[WorkItem]:
    """One work item per package, as the deal pipeline shows it."""
    today = world.today.isoformat()
    return [work_item(package, today) for package in world.packages.values()]


def live_faults(seed: int = 7) -> FaultConfig:
    """Production exceptions on demand: a flaky statements endpoint, a decision write answered 502, a
    committee hand-off that times out after it took effect, a refused information request."""
    return FaultConfig(
        seed=seed,
        timeout_s=2.0,  # a stall outlasts the bridge's 1 s live timeout
        rules=(
            FaultRule(endpoint="get_financial_statements", kind="http_error", status=503, rate=0.2),
            FaultRule(endpoint="record_recommendation", kind="http_error", status=502, first_n=1),
            FaultRule(endpoint="escalate_to_committee", kind="timeout", first_n=1, delay_ms=2000),
            FaultRule(endpoint="request_information", kind="http_error", status=422, first_n=1),
            FaultRule(endpoint="get_package", kind="latency", delay_ms=120, rate=0.3),
        ),
    )


def document_noise(seed: int = 7) -> NoiseConfig:
    """OCR damage in the PDF tables: mostly repaired exactly, sometimes refused as unreliable."""
    return NoiseConfig(seed=seed, rate=0.04)


def training_vocabulary(tasks: Iterable[Task] | None = None) -> dict[str, list[str]]:
    """Every value of the vocabulary fields in the training tasks' worlds and gold calls."""
    return vocabulary_of(tasks if tasks is not None else generate_base(seed=0), VOCABULARY_FIELDS)


def breaches(item_id: str) -> bool:
    """Whether the package's first compliance certificate shows a breach (about one in four)."""
    return hashlib.sha256(item_id.encode()).digest()[0] < 64


def later_outcome(episode_id: str, item: WorkItem, succeeded_tools: Iterable[str]) -> PlannedOutcome | None:
    """The first quarterly compliance certificate of a package the analyst recorded a decision on:
    compliant, or a covenant breach (which contradicts an approval)."""
    if "record_recommendation" not in set(succeeded_tools):
        return None
    amount = Decimal(str(item.payload.get("facility_amount", 0))).quantize(Decimal("0.01"))
    if breaches(item.item_id):
        return PlannedOutcome(episode_id, "covenant_breach", item.item_id, amount, ("max_total_leverage",))
    return PlannedOutcome(episode_id, "compliance_certificate", item.item_id, amount, ())


DEMO = DemoScenario(
    queue_label="working the credit package queue through the bridge",
    world=queue_world,
    work_queue=work_queue,
    faults=live_faults,
    vocabulary=training_vocabulary,
    later_outcome=later_outcome,
    card_sizes={"per_recipe": 1, "per_kind": 1},
    sandbox_settings=lambda: {"document_noise": document_noise()},
)
