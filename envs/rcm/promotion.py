"""How an rcm edge case becomes a task (`envs.promotion.Promotion`): the draft rebuilt from the
episode's recorded answers (`adapters.rcm.drafts`), its live faults replayed as the rcm environment's
fault plan, and the suggested outcome spec. Pure.

The suggestion is the reference specialist's own resolution of the draft, as one acceptable
resolution of the spec (`OutcomeSpec.resolutions`, so a reviewer can add others or replace it):
each record the specialist's writes left in the world becomes an assertion (the replacement with
its corrected fields, the appeal and its basis, the amounts written off or billed to the patient,
the hand-off and its queue; `envs.rcm.moves` writes them, for the reviewer's moves too), and the
claim stays open behind work pending with the payer. Beyond that the spec forbids only what the
domain forbids on every case: billing a patient for a contractual amount. It does not rule out the
writes the specialist did not make, by name or by their effects: what must not happen is the
reviewer's to mark (the review form), not the reference specialist's trajectory; the gates
(mutants, exploits) show whether the spec still tells a wrong resolution from a right one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.drafting.draft import TaskDraft
from adapters.drafting.replay import LiveFault
from adapters.rcm.drafts import rcm_rebuild
from envs.env import replay
from envs.promotion import DomainPromotion
from envs.rcm import moves
from envs.rcm.domain import DOMAIN
from envs.rcm.faults import FAULTS_KEY, Fault
from envs.rcm.intents import WRITES
from envs.rcm.specs import NO_PATIENT_BILLING_ON_CO
from envs.rcm.tasks import OUTCOME_PATHS, solve, work_item_for
from schemas.tasks import Assertion, OutcomeSpec, Resolution, VerifierSpec
from schemas.tools import ToolCall

VERIFIER = "rcm.v2"
_CLAIM_KEYS = (
    "payer_id",
    "payer_sequence",
    "frequency_code",
    "member_id",
    "rendering_npi",
    "prior_auth_number",
    "diagnosis_codes",
)
_LINE_KEYS = ("procedure_code", "modifiers", "place_of_service", "units")
_REBUILD = rcm_rebuild(lambda world, item: work_item_for(world, item.item_id))


def fault_plan(faults: Sequence[LiveFault]) -> list[Fault]:
    """The live faults the rcm environment can replay: server errors (as 503) and timeouts."""
    plan = []
    for fault in faults:
        if fault.kind == "http" and (fault.status_code or 0) >= 500:
            plan.append(Fault(tool=fault.tool, occurrence=fault.occurrence, kind="http_503"))
        elif fault.kind == "timeout":
            plan.append(
                Fault(tool=fault.tool, occurrence=fault.occurrence, kind="timeout", applied=fault.applied)
            )
    return plan


def task_world(draft: TaskDraft) -> dict[str, Any]:
    """The draft's world, with the live faults the rcm environment can replay as its fault plan."""
    world: dict[str, Any] = dict(draft.world)
    plan = fault_plan(draft.faults)
    if plan:
        world[FAULTS_KEY] = {"plan": [f.model_dump() for f in plan], "calls": {}}
    return world


def suggested_spec(draft: TaskDraft) -> tuple[VerifierSpec, tuple[ToolCall, ...]]:
    """The reference specialist works the draft; its resolution, written as a spec, and its calls."""
    blank = PROMOTION.candidate_task(draft, VerifierSpec(verifier=VERIFIER, outcome=OutcomeSpec()))
    gold = solve(blank)
    final = replay(DOMAIN, blank, gold).final_world
    facts = DOMAIN.outcome_facts(blank.initial_world, final)
    claim_id = draft.work_item.item_id
    outcome, used = _assertions(facts)
    resolution = "+".join(tool for tool in WRITES if tool in used) or "nothing"
    reference = (
        Resolution(
            name=moves.name(f"reference:{resolution}"),
            reason="the reference specialist's resolution",
            assertions=tuple(outcome),
        ),
    )
    spec = VerifierSpec(
        verifier=VERIFIER,
        outcome=OutcomeSpec(must=(NO_PATIENT_BILLING_ON_CO,), resolutions=reference if outcome else ()),
        outcome_paths=OUTCOME_PATHS,
        must_escalate="escalate_to_human" in used,
        params={"resolution": resolution, "claim_id": claim_id},
    )
    return spec, gold


def _assertions(facts: dict[str, list[dict[str, Any]]]) -> tuple[list[Assertion], set[str]]:
    """An assertion per kind of record the specialist created (the claim kept open behind work
    pending with the payer), and the write tools behind them."""
    out: list[Assertion] = []
    used: set[str] = set()

    def wrote(tool: str, claim_id: str, *facts: Assertion) -> None:
        used.add(tool)
        out.extend(facts)
        kept = moves.pending(tool, claim_id)
        if kept is not None and kept not in out:
            out.append(kept)

    for claim in (c for c in facts["claims"] if c["new"]):
        tool, link = _claim_tool(claim)
        where: dict[str, Any] = {"new": True, link: claim[link]}
        where |= {key: claim[key] for key in _CLAIM_KEYS}
        for i, line in enumerate(claim["lines"]):
            where |= {f"lines.{i}.{key}": line[key] for key in _LINE_KEYS}
        sent = moves.one(
            f"{tool}.{claim[link]}", f"the specialist sent this {tool.replace('_', ' ')}", "claims", where
        )
        wrote(tool, str(claim[link]), sent)
    for claim in (c for c in facts["claims"] if c["closed_now"] and not c["new"]):
        shut = moves.closed(str(claim["claim_id"]), str(claim["closed_reason"]))
        wrote("close_claim", str(claim["claim_id"]), shut)
    for appeal in (a for a in facts["appeals"] if a["new"]):
        wrote("submit_appeal", str(appeal["claim_id"]), moves.appealed(appeal["claim_id"], appeal["basis"]))
    for auth in (a for a in facts["authorizations"] if a["new"]):
        where = {"new": True, "claim_id": auth["claim_id"], "retro": auth["retro"]}
        requested = moves.one(
            f"authorization.{auth['claim_id']}", "an authorization is requested", "authorizations", where
        )
        wrote("request_authorization", str(auth["claim_id"]), requested)
    for collection, tool, kind in (
        ("write_offs", "post_write_off", "reason_code"),
        ("patient_transfers", "transfer_to_patient_responsibility", "reason"),
    ):
        totals: dict[tuple[str, str], float] = {}
        for row in (r for r in facts[collection] if r["new"]):
            key = (str(row["claim_id"]), str(row[kind]))
            totals[key] = round(totals.get(key, 0.0) + float(row["amount"]), 2)
        for (claim_id, reason), total in totals.items():
            wrote(tool, claim_id, moves.posted(collection, claim_id, kind, reason, total))
    for row in (r for r in facts["escalations"] if r["new"]):
        hand_off = moves.handed_off(row["claim_id"], row["queue"], row["recommended_action"])
        wrote("escalate_to_human", str(row["claim_id"]), hand_off)
    return out, used


def _claim_tool(claim: dict[str, Any]) -> tuple[str, str]:
    if claim.get("replaces_claim_id"):
        return "submit_replacement_claim", "replaces_claim_id"
    if claim.get("resubmits_claim_id"):
        return "submit_new_claim", "resubmits_claim_id"
    return "bill_other_payer", "billed_from_claim_id"


PROMOTION = DomainPromotion(
    "rcm", _REBUILD, [s.name for s in DOMAIN.tool_specs()], suggested_spec, task_world=task_world
)
