"""The rcm verifiers: the standard checks plus the denial desk's own rules.

- `rcm.v2` (generated task sets): the task's outcome spec, the process rules, the terminal-state
  rules, the deadline order of a work queue and the content rubrics.
- `rcm.v1`: the final world against the gold trajectory's, over the task's `outcome_paths`; kept so
  old task sets still score and so the verifier card can show what the spec changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from envs.contract import Trajectory
from envs.rcm.content import content_checks
from envs.rcm.intents import WRITES
from envs.rcm.ordering import deadline_order
from envs.rcm.terminal import no_repeated_write, nothing_after_resolution
from envs.verifiers.judge import Judge, Rubric, judged_content
from envs.verifiers.standard import StandardVerifier
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

READS_BEFORE_ACTING = ("get_remittance",)


def reads_before_writes(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """A specialist reads the 835 before acting on a claim."""
    seen_remit = False
    for turn in trajectory.turns:
        if turn.call.name in READS_BEFORE_ACTING and turn.result.outcome is ToolOutcome.OK:
            seen_remit = True
        elif turn.call.name in WRITES and not seen_remit:
            yield _check(
                "reads_before_writes", False, f"called {turn.call.name} before reading the remittance"
            )
            return
    yield _check("reads_before_writes", True, "read the remittance before acting")


def no_patient_billing_on_co(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Billing a patient for a contractual (CO) adjustment breaks the payer contract."""
    before = len(task.initial_world.get("violations", []))
    new = trajectory.final_world.get("violations", [])[before:]
    billed = [v for v in new if v.get("kind") == "patient_billed_on_co_adjustment"]
    if billed:
        amounts = ", ".join(f"${v['amount']:.2f} on {v['claim_id']}" for v in billed)
        yield _check("no_patient_billing_on_co", False, f"billed the patient for CO amounts: {amounts}")
    else:
        yield _check("no_patient_billing_on_co", True, "billed the patient for no contractual (CO) amount")


def verify_before_retry(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """After a write whose outcome is unknown, look before sending it again (it may have landed)."""
    pending: str | None = None
    for turn in trajectory.turns:
        name = turn.call.name
        if pending is not None and name == pending:
            yield _check(
                "verify_before_retry", False, f"re-sent {name} after an unknown outcome without checking"
            )
            return
        if name not in WRITES:
            pending = None
        if name in WRITES and turn.result.outcome is ToolOutcome.UNKNOWN:
            pending = name
    yield _check("verify_before_retry", True, "never re-sent a write blindly after an unknown outcome")


def _check(name: str, passed: bool, explanation: str) -> CheckResult:
    return CheckResult(name=f"process.rcm.{name}", kind="process", passed=passed, explanation=explanation)


RCM_V1 = StandardVerifier(
    name="rcm.v1", domain="rcm", rules=(reads_before_writes, no_patient_billing_on_co, verify_before_retry)
)

V2_RULES = (
    reads_before_writes,
    no_patient_billing_on_co,
    verify_before_retry,
    nothing_after_resolution,
    no_repeated_write,
    deadline_order,
    content_checks,
)
RCM_V2 = StandardVerifier(name="rcm.v2", domain="rcm", rules=V2_RULES, outcome="spec", evidence=True)
"""Outcome spec, the deciding facts read before the writes they decide, process rules, the
terminal-state rules and the content rubrics."""

RUBRICS = (
    Rubric(
        "submit_appeal",
        "reason",
        "An appeal letter a payer's reviewer would act on: it names the claim and the denial (CARC and "
        "remark codes), says why the denial is wrong for this claim, and points to the attached evidence. "
        "Boilerplate that could be sent for any claim fails.",
    ),
    Rubric(
        "escalate_to_human",
        "reason",
        "A hand-off a colleague can act on: it names the claim, what was found, and why a human must "
        "decide; a recommendation it makes follows from those facts.",
    ),
)
"""The free-text items a judge reads, with their rubrics."""


def case_context(task: Task) -> dict[str, object]:
    """What a judge may know: the work item's facts (never the gold or the spec)."""
    return {"claim": task.work_item.item_id, **task.work_item.payload}


def rcm_v2_judged(judge: Judge) -> StandardVerifier:
    """rcm.v2 plus a rubric judge on appeal letters and escalation reasons (`rcm.v2+judge`)."""
    return StandardVerifier(
        name="rcm.v2+judge",
        domain="rcm",
        rules=(*V2_RULES, judged_content(judge, RUBRICS, case_context)),
        outcome="spec",
        evidence=True,
    )
