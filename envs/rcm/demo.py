"""The rcm demo, as data (`envs.demo.DemoScenario`): the practice's denial queue, the live
system's faults, the payer's later answers and the payer rule it changes (`rule_change`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from adapters.faults import FaultConfig, FaultRule
from adapters.rcm import SEED_CASES, World, seed_world
from envs.demo import DemoScenario, PlannedOutcome, vocabulary_of
from envs.rcm.rule_change import RETRO_WINDOW_SHORTENED
from envs.rcm.tasks import generate_base, work_item_for
from schemas import Task, WorkItem

RESUBMITTING_TOOLS = frozenset({"submit_replacement_claim", "submit_appeal", "bill_other_payer"})

DENIED_AGAIN: Mapping[str, tuple[str, ...]] = {"CLM-1016": ("CO-97",), "CLM-1003": ("CO-15", "N54")}
"""Claims whose resubmission the payer denies again later: the contradiction rule should fire."""


def work_queue(world: World) -> list[WorkItem]:
    """One work item per denied seed claim, as the practice's work queue shows it."""
    return [work_item_for(world, claim_id) for claim_id in SEED_CASES]


def live_faults(seed: int = 7) -> FaultConfig:
    """Production exceptions on demand: a flaky status endpoint, a write that times out, a 422."""
    return FaultConfig(
        seed=seed,
        timeout_s=2.0,  # a stall outlasts the bridge's 1 s live timeout (see `run_pipeline`)
        rules=(
            FaultRule(endpoint="get_claim_status", kind="http_error", status=503, rate=0.5),
            FaultRule(endpoint="submit_appeal", kind="http_error", status=502, first_n=1),
            FaultRule(endpoint="post_write_off", kind="timeout", first_n=1, delay_ms=2000, apply_write=True),
            FaultRule(endpoint="check_eligibility", kind="http_error", status=422, first_n=1),
            FaultRule(endpoint="get_documents", kind="latency", delay_ms=150, rate=0.3),
        ),
    )


def later_outcome(episode_id: str, item: WorkItem, succeeded_tools: Iterable[str]) -> PlannedOutcome | None:
    """The payer's later answer to a resubmitted claim (paid, or denied again); None otherwise."""
    if not RESUBMITTING_TOOLS & set(succeeded_tools):
        return None
    amount = Decimal(str(item.payload.get("billed_amount", 0))).quantize(Decimal("0.01"))
    if item.item_id in DENIED_AGAIN:
        return PlannedOutcome(episode_id, "denied", item.item_id, Decimal("0.00"), DENIED_AGAIN[item.item_id])
    return PlannedOutcome(episode_id, "paid", item.item_id, amount, ())


VOCABULARY_FIELDS = ("reason_code", "group_code", "retro_auth_window_days")
"""CARCs and group codes on remittances (`reason_code` also names write-off reasons), and the payer
rule a payer changes in the demo (`envs.rcm.rule_change`): a window no training world has."""


def training_vocabulary(tasks: Iterable[Task]) -> dict[str, list[str]]:
    """Every value of the vocabulary fields anywhere in the training tasks (worlds and gold calls).

    The edge-case detector flags any other value it meets in production as never seen in training.
    """
    return vocabulary_of(tasks, VOCABULARY_FIELDS, numbers=True)


DEMO = DemoScenario(
    queue_label="working the denial queue through the bridge",
    world=seed_world,
    work_queue=work_queue,
    faults=live_faults,
    vocabulary=lambda: training_vocabulary(generate_base(seed=0)),
    later_outcome=later_outcome,
    card_sizes={"per_carc": 1, "per_kind": 1, "queues": 4},
    rule_change=RETRO_WINDOW_SHORTENED,
    improvement=True,
)
