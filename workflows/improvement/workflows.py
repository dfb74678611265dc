"""`ImprovementCycleWorkflow`: what production taught becomes an adapter, released like any other
release: build the dataset → train (on the `gpu` task queue; a killed worker's attempt is retried
on another from its last checkpoint) → evaluate against the champion → gate → register → canary
→ the sequential test decides, on its own: promote or roll back.

All I/O is in activities (`workflows.improvement.activities`), each idempotent, so the cycle
completes exactly once whatever crashes: one dataset, one adapter, one registration, one decision.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from workflows.improvement.activities import ImprovementActivities
    from workflows.improvement.models import AdapterStep, CycleInput, CycleResult, TrainInput

QUICK = timedelta(minutes=1)
HEAVY = timedelta(hours=2)
RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
TRAIN_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30), maximum_attempts=20
)
PREFIX = "improve-"


def cycle_workflow_id(cycle_id: str) -> str:
    """The one workflow id of a cycle."""
    return f"{PREFIX}{cycle_id}"


@workflow.defn
class ImprovementCycleWorkflow:
    """One cycle, from promoted tasks to a decided canary."""

    def __init__(self) -> None:
        self._stage = "starting"

    @workflow.query
    def stage(self) -> str:
        """Where the cycle is."""
        return self._stage

    @workflow.run
    async def run(self, data: CycleInput) -> CycleResult:
        s = data.settings
        self._stage = "dataset"
        dataset = await workflow.execute_activity_method(
            ImprovementActivities.build_dataset, data, start_to_close_timeout=HEAVY, retry_policy=RETRY
        )
        self._stage = "training"
        trained = await workflow.execute_activity_method(
            ImprovementActivities.train_adapter,
            TrainInput(cycle=data, dataset_folder=dataset.folder),
            task_queue=s.gpu_queue,
            start_to_close_timeout=timedelta(hours=24),
            heartbeat_timeout=timedelta(seconds=s.train_heartbeat_s),
            retry_policy=TRAIN_RETRY,
        )
        step = AdapterStep(cycle=data, adapter_folder=trained.adapter_folder)
        self._stage = "evaluating"
        await workflow.execute_activity_method(
            ImprovementActivities.evaluate_adapter, step, start_to_close_timeout=HEAVY, retry_policy=RETRY
        )
        self._stage = "gating"
        gate = await workflow.execute_activity_method(
            ImprovementActivities.gate_adapter, step, start_to_close_timeout=QUICK, retry_policy=RETRY
        )
        self._stage = "registering"
        registered = await workflow.execute_activity_method(
            ImprovementActivities.register_adapter, step, start_to_close_timeout=QUICK, retry_policy=RETRY
        )
        if not registered.registered:
            self._stage = "stopped by the gate"
            return CycleResult(
                adapter_id=data.cycle_id,
                gate_passed=False,
                registered=False,
                decision="stopped_by_gate",
                reason="; ".join(gate.reasons),
            )
        self._stage = "canary"
        await workflow.execute_activity_method(
            ImprovementActivities.deploy_canary, step, start_to_close_timeout=QUICK, retry_policy=RETRY
        )
        deadline = workflow.now() + timedelta(seconds=s.canary_max_s)
        while True:
            decided = await workflow.execute_activity_method(
                ImprovementActivities.decide_canary, step, start_to_close_timeout=QUICK, retry_policy=RETRY
            )
            if decided.decision == "continue" and workflow.now() >= deadline:
                decided = await workflow.execute_activity_method(
                    ImprovementActivities.end_canary, step, start_to_close_timeout=QUICK, retry_policy=RETRY
                )
            if decided.decision != "continue":
                self._stage = "promoted" if decided.decision == "promote" else "rolled back"
                return CycleResult(
                    adapter_id=data.cycle_id,
                    gate_passed=gate.passed,
                    registered=True,
                    decision=decided.decision,
                    reason=decided.reason,
                )
            await workflow.sleep(timedelta(seconds=s.decide_every_s))
