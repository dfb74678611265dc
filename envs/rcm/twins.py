"""Counterfactual twins: pairs of tasks a blind desk cannot tell apart whose right moves differ.

A twin is a generated case with one piece of evidence changed (a payer rule, the authorizations on
file): its work item, 835, claim and document list are the same as its sibling's, so every reading
of the visible fields gives both the same answer, and a desk that answers both the same passes at
most one. The recipes are data (`twins.json`: the base row, the variants a recipe applies to, the
evidence it changes and the move the twin's evidence calls for); this module applies them, with
the document edits of `twin_documents` and the edits of `twin_edits` (corrected claims, the right
payer, dated rules, queues and the edge kinds whose evidence decides).

Tasks of a twin set share the tag `twin:<set id>`; `twin_problems` checks that the golds differ:
each task's gold, replayed on its twin, must fail there.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from adapters.rcm import World
from envs.adversarial.twins import TWIN_TAG, pair_problems
from envs.rcm import intents as want
from envs.rcm.casekit import Case
from envs.rcm.cases import DISTINCT_NOTES
from envs.rcm.charts import ABN_REASONS
from envs.rcm.deciding import (
    WRITE_OFF,
    coverage_ended,
    no_auth_path,
    read_doc,
    retro_auth_facts,
    rules_read,
)
from envs.rcm.tasks import draw, to_task
from envs.rcm.twin_documents import (
    abn_for_the_service,
    abn_not_counting,
    chart_with_distinct,
    chart_without_distinct,
)
from envs.rcm.twin_draws import (
    discount_twins,
    managed_care_twins,
    overpayment_twins,
    prompt_pay_twins,
    take_back_twins,
    units_twins,
)
from envs.rcm.twin_edits import EDITS
from schemas.tasks import Task

DATA = Path(__file__).with_name("twins.json")
MAX_DRAWS = 400
"""Cases drawn per recipe, at most, to find enough of the variants it applies to."""


@dataclass(frozen=True)
class Recipe:
    """One way to turn a case into its twin."""

    name: str
    carc: str
    variants: tuple[str, ...]
    edit: str
    direction: str
    typical: tuple[int, ...]
    move: str
    why: str
    edge: str | None = None
    """The edge kind the recipe draws its cases from (its `carc` then filters them); None: the
    base row `carc`."""


def recipes(path: Path = DATA) -> list[Recipe]:
    """The twin recipes in the data file."""
    raw = json.loads(path.read_text())["recipes"]
    return [
        Recipe(
            name=r["name"],
            carc=r["carc"],
            variants=tuple(r["variants"]),
            edit=r["edit"],
            direction=r["direction"],
            typical=tuple(r["typical"]),
            move=r["move"],
            why=r["why"],
            edge=r.get("edge"),
        )
        for r in raw
    ]


def untwinned(path: Path = DATA) -> dict[str, str]:
    """Families (`edge:<kind>` or `carc:<row>`) no recipe can twin, and why, from the data file."""
    return {u["family"]: u["why"] for u in json.loads(path.read_text()).get("untwinned", [])}


def _days(case: Case) -> tuple[int, int]:
    """(days from service to the last 277CA acceptance, days from service to today)."""
    claim = case.world.claims[case.claim_id]
    dos = min(line.service_date for line in claim.lines)
    accepted = [a.ack_date for a in claim.acknowledgments if a.action != "rejected"]
    last: date = max(accepted) if accepted else claim.submitted_date or dos
    return (last - dos).days, (case.world.today - dos).days


def _value(recipe: Recipe, rng: random.Random, bound: int) -> int | None:
    """A rule value on the recipe's side of `bound`: the nearest typical one, else just past it."""
    if recipe.direction == "below":
        under = [v for v in recipe.typical if v < bound]
        return max(under) if under else (bound - rng.randrange(2, 6) if bound >= 6 else None)
    over = [v for v in recipe.typical if v > bound]
    return min(over) if over else bound + rng.randrange(2, 20)


def _with_rule(world: World, payer_id: str, **update: int) -> World:
    payer = world.payers[payer_id]
    if payer.rule_changes:
        raise ValueError(f"payer {payer_id} has dated rule changes; a twin edits only undated rules")
    edited = payer.model_copy(update={"rules": payer.rules.model_copy(update=update)})
    return world.model_copy(update={"payers": {**world.payers, payer_id: edited}})


def _without_auth(world: World, claim_id: str) -> World:
    claim = world.claims[claim_id]
    codes = {line.procedure_code for line in claim.lines}
    days = {line.service_date for line in claim.lines}
    kept = {
        k: a
        for k, a in world.authorizations.items()
        if not (
            a.patient_id == claim.patient_id and a.service_date in days and codes & set(a.procedure_codes)
        )
    }
    if len(kept) == len(world.authorizations):
        raise ValueError(f"no authorization of {claim_id}'s service is on file")
    return world.model_copy(update={"authorizations": kept})


def _without_new_coverage(world: World, claim_id: str) -> World | None:
    """The world without the coverage the patient took up after the claim's payer ended."""
    claim = world.claims[claim_id]
    ended = _coverage_end(world, claim_id)
    if ended is None:
        return None
    kept = {
        k: c
        for k, c in world.coverages.items()
        if not (c.patient_id == claim.patient_id and c.payer_id != claim.payer_id and c.start_date > ended)
    }
    if len(kept) == len(world.coverages):
        return None
    return world.model_copy(update={"coverages": kept})


def _coverage_end(world: World, claim_id: str) -> date | None:
    claim = world.claims[claim_id]
    ends = [
        c.end_date
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id and c.payer_id == claim.payer_id and c.end_date is not None
    ]
    return max(ends) if ends else None


def _allowed(world: World, claim_id: str) -> float | None:
    """What the payer allowed on a one-line claim with one unit (the charge less its CO-45)."""
    claim = world.claims[claim_id]
    remit = world.latest_remittance(claim_id)
    if remit is None or len(claim.lines) != 1 or claim.lines[0].units != 1:
        return None
    co45 = sum(
        a.amount
        for line in remit.lines
        for a in line.adjustments
        if (a.group_code, a.reason_code) == ("CO", "45")
    )
    return round(claim.total_charge - co45, 2)


def _rate_above(world: World, claim_id: str, rng: random.Random) -> World | None:
    """The world with a contracted rate on file between what the payer allowed and the charge."""
    claim = world.claims[claim_id]
    allowed = _allowed(world, claim_id)
    if allowed is None or claim.total_charge - allowed < 1.0:
        return None
    rate = round(allowed + (claim.total_charge - allowed) * rng.uniform(0.3, 0.8), 2)
    schedule = {**world.payers[claim.payer_id].rules.fee_schedule, claim.lines[0].procedure_code: rate}
    payer = world.payers[claim.payer_id]
    edited = payer.model_copy(update={"rules": payer.rules.model_copy(update={"fee_schedule": schedule})})
    return world.model_copy(update={"payers": {**world.payers, claim.payer_id: edited}})


def _original_in_process(world: World, claim_id: str, rng: random.Random) -> World | None:
    """The world where the duplicate's paid original was accepted and is still in process: no
    remittance of it yet."""
    claim = world.claims[claim_id]
    originals = [
        c
        for c in world.claims.values()
        if c.claim_id != claim_id
        and c.patient_id == claim.patient_id
        and c.payer_id == claim.payer_id
        and c.status in ("paid", "partially_paid")
        and [(ln.procedure_code, ln.service_date) for ln in c.lines]
        == [(ln.procedure_code, ln.service_date) for ln in claim.lines]
    ]
    if len(originals) != 1:
        return None
    original = originals[0]
    claims = {
        **world.claims,
        original.claim_id: original.model_copy(update={"status": rng.choice(("accepted", "pending"))}),
    }
    remits = {k: r for k, r in world.remittances.items() if r.claim_id != original.claim_id}
    return world.model_copy(update={"claims": claims, "remittances": remits})


def _edited(case: Case, recipe: Recipe, rng: random.Random) -> World | None:
    """The case's world with the recipe's evidence changed, or None when the case cannot take it."""
    world = case.world
    payer_id = world.claims[case.claim_id].payer_id
    if world.payers[payer_id].rule_changes:
        return None
    if recipe.edit == "authorization":
        return _without_auth(world, case.claim_id)
    if recipe.edit == "coverage":
        return _without_new_coverage(world, case.claim_id)
    if recipe.edit == "fee_schedule":
        return _rate_above(world, case.claim_id, rng)
    if recipe.edit == "original":
        return _original_in_process(world, case.claim_id, rng)
    if recipe.edit == "appeal_window_days":
        remit = world.latest_remittance(case.claim_id)
        if remit is None:
            return None
        rules = world.payers[payer_id].rules
        since_receipt = (world.today - remit.production_date).days - rules.notice_receipt_days
        under = [v for v in recipe.typical if v < since_receipt]
        return _with_rule(world, payer_id, appeal_window_days=max(under)) if under else None
    if recipe.edit == "retro_auth_window_days" and recipe.direction == "above":
        claim = world.claims[case.claim_id]
        code = claim.lines[0].procedure_code
        rules = world.payers[payer_id].rules
        if rules.auth_decision_by_code.get(code, rules.auth_decision) == "denied":
            return None
        late = (world.today - min(line.service_date for line in claim.lines)).days
        over = [v for v in recipe.typical if v >= late]
        return _with_rule(world, payer_id, retro_auth_window_days=min(over)) if over else None
    filed, since = _days(case)
    bound = filed if recipe.edit == "timely_filing_days" else since
    if recipe.edit == "timely_filing_days" and recipe.direction == "above":
        bound = filed + 1
    value = _value(recipe, rng, bound)
    if value is None or value < 0:
        return None
    return _with_rule(world, payer_id, **{recipe.edit: value})


def _intent(case: Case, recipe: Recipe, world: World) -> want.Intent:
    """The handling the twin's evidence calls for."""
    claim = world.claims[case.claim_id]
    limit = world.practice.write_off_approval_limit
    kind, _, detail = recipe.move.partition(":")
    if kind == "write_off" and detail == "no_authorization":
        return want.write_off(claim.claim_id, detail, claim.total_charge, limit).citing(
            *no_auth_path(claim.payer_id, claim.claim_id)
        )
    if kind == "write_off" and recipe.edit == "appeal_window_days":
        closed = rules_read(
            claim.payer_id, "the payer's appeal window has closed", claim.claim_id, *WRITE_OFF
        )
        return want.write_off(claim.claim_id, detail, claim.total_charge, limit).citing(closed)
    if kind == "write_off":
        return want.write_off(claim.claim_id, detail, claim.total_charge, limit).citing(*case.intent.evidence)
    if kind == "retro_auth":
        rules = world.payers[claim.payer_id].rules
        code = claim.lines[0].procedure_code
        pended = rules.auth_decision_by_code.get(code, rules.auth_decision) == "pended"
        return want.retro_auth(claim.claim_id, approved=not pended).citing(
            *retro_auth_facts(claim.payer_id, claim.claim_id)
        )
    if kind == "appeal" and detail == "underpayment":
        rate = world.payers[claim.payer_id].rules.fee_schedule[claim.lines[0].procedure_code]
        return want.underpayment(claim.claim_id, claim.payer_id, round(claim.total_charge - rate, 2))
    if kind == "appeal":
        return want.appeal(claim.claim_id, detail, []).citing(*case.intent.evidence)
    if kind == "transfer":
        ended = _coverage_end(world, claim.claim_id)
        assert ended is not None
        return want.transfer(claim.claim_id, detail).citing(
            coverage_ended(claim.claim_id, ended, none_other=True)
        )
    if kind == "close" and detail == "duplicate_of_original_in_process":
        return want.close_duplicate(claim.claim_id, in_process=True)
    raise ValueError(f"twin recipe {recipe.name}: unknown move {recipe.move!r}")


DOCUMENT_EDITS = frozenset({"chart_modifier", "abn"})
"""Edits of what a document says (`twin_documents`); the others edit the payer's data."""


def _document_twin(case: Case, recipe: Recipe, rng: random.Random) -> tuple[World, want.Intent] | None:
    """The world with the document's content edited, and the handling it calls for."""
    world, claim_id = case.world, case.claim_id
    claim = world.claims[claim_id]
    limit = world.practice.write_off_approval_limit
    if recipe.edit == "chart_modifier" and recipe.direction == "remove":
        removed = chart_without_distinct(world, claim_id, DISTINCT_NOTES)
        if removed is None:
            return None
        edited, chart_id = removed
        denied = _denied_amount(edited, claim_id, "97")
        plain = read_doc(chart_id, "the procedure note documents no distinct service", claim_id, *WRITE_OFF)
        return edited, want.write_off(claim_id, "bundled", denied, limit).citing(plain)
    if recipe.edit == "chart_modifier":
        added = chart_with_distinct(world, claim_id, DISTINCT_NOTES, rng)
        if added is None:
            return None
        edited, _, modifier = added
        constraint = {"corrections.lines.0.modifiers": {"$contains": modifier}}
        return edited, want.replacement(claim_id, "distinct service documented", **constraint)
    if recipe.direction == "invalid":
        flawed = abn_not_counting(world, claim_id, rng)
        if flawed is None:
            return None
        edited, abn_id, flaw = flawed
        why = f"the ABN on file does not count ({flaw.replace('_', ' ')})"
        fact = read_doc(abn_id, why, claim_id, *WRITE_OFF)
        return edited, want.write_off(claim_id, "not_medically_necessary", claim.total_charge, limit).citing(
            fact
        )
    valid = abn_for_the_service(world, claim_id, rng.choice(ABN_REASONS))
    if valid is None:
        return None
    edited, abn_id = valid
    signed = read_doc(
        abn_id,
        "the ABN names this service and was signed before it",
        claim_id,
        "transfer_to_patient_responsibility",
    )
    return edited, want.transfer(claim_id, "non_covered_with_waiver").citing(signed)


def _denied_amount(world: World, claim_id: str, carc: str) -> float:
    remit = world.latest_remittance(claim_id)
    assert remit is not None
    return round(sum(a.amount for ln in remit.lines for a in ln.adjustments if a.reason_code == carc), 2)


def twin_case(case: Case, recipe: Recipe, rng: random.Random) -> Case | None:
    """The case's twin under the recipe, or None when the case cannot take it."""
    if recipe.edit in EDITS:
        edited_case = EDITS[recipe.edit](case, rng, recipe.typical)
        if edited_case is None:
            return None
        kept = tuple(t for t in edited_case.tags if not t.startswith("variant:"))
        return replace(edited_case, tags=(*kept, f"variant:twin:{recipe.name}"))
    if recipe.edit in DOCUMENT_EDITS:
        made = _document_twin(case, recipe, rng)
        if made is None:
            return None
        world, intent = made
    else:
        edited = _edited(case, recipe, rng)
        if edited is None:
            return None
        world, intent = edited, _intent(case, recipe, edited)
    tags = (*(t for t in case.tags if not t.startswith("variant:")), f"variant:twin:{recipe.name}")
    return replace(case, world=world, intent=intent, tags=tags)


def generate_twins(seed: int = 0, per_recipe: int = 8) -> list[Task]:
    """`per_recipe` twin pairs per recipe (`rcm-twins-<recipe>-<i>-a` and `-b`), each pair tagged
    `twin:<recipe>-<i>` and `dist:twins`."""
    from envs.rcm.cases import BASE, PAYER_FOR
    from envs.rcm.cases_edge import EDGE

    out: list[Task] = []
    for recipe in recipes():
        build, payers = BASE.get(recipe.carc), PAYER_FOR.get(recipe.carc)
        category, edge_tags = recipe.carc, tuple[str, ...]()
        if recipe.edge is not None:
            build, kind_category, payers = EDGE[recipe.edge]
            category, edge_tags = (recipe.carc or kind_category), (f"edge:{recipe.edge}",)
        assert build is not None, f"twin recipe {recipe.name}: no base row {recipe.carc}"
        found = 0
        for draw_index in range(MAX_DRAWS):
            if found >= per_recipe:
                break
            case = draw("rcm-twins", seed, recipe.name, draw_index, build, payers)
            if recipe.edge is not None and case.category not in (None, recipe.carc):
                continue
            if recipe.variants and not set(case.tags) & set(recipe.variants):
                continue
            twin = twin_case(case, recipe, random.Random(f"twin:{seed}:{recipe.name}:{draw_index}"))
            if twin is None:
                continue
            set_id = f"{recipe.name}-{found:03d}"
            for suffix, made in (("a", case), ("b", twin)):
                out.append(
                    to_task(
                        made,
                        task_id=f"rcm-twins-{set_id}-{suffix}",
                        seed=seed,
                        distribution="twins",
                        category=category,
                        extra_tags=(*edge_tags, f"{TWIN_TAG}{set_id}", f"twin-recipe:{recipe.name}"),
                    )
                )
            found += 1
        if found < per_recipe:
            raise ValueError(
                f"twin recipe {recipe.name}: only {found} of {per_recipe} cases in {MAX_DRAWS} draws"
            )
    return out


def _visible(task: Task) -> list[object]:
    """What a blind desk sees of the task: the work item and its visible reads' answers."""
    from envs.rcm.blind import move_policy
    from envs.rcm.domain import DOMAIN
    from envs.rollout import play

    turns = play(task, move_policy("nothing"), domain=DOMAIN).trajectory.turns
    return [task.work_item.model_dump(mode="json"), *(t.result.model_dump(mode="json") for t in turns)]


def twin_problems(tasks: Sequence[Task], verifier: str = "rcm.v2") -> list[str]:
    """What is wrong with the twin sets among `tasks`: a set that is not a pair, twins a blind desk
    can tell apart, or a gold that passes on its twin (the twins would not call for different moves)."""
    from envs.rcm.domain import DOMAIN

    differs = "the work item or a visible read differs between the twins"
    return pair_problems(tasks, DOMAIN, verifier, _visible, differs)


def generate_twin_set(seed: int = 0, per_recipe: int = 8) -> list[Task]:
    """The `rcm-twins` set: every recipe's pairs, then the reversal take-back, prompt-pay,
    overpayment, cut-units, managed-care and discount pairs (`envs.rcm.twin_draws`)."""
    return (
        generate_twins(seed, per_recipe)
        + take_back_twins(seed, per_recipe)
        + prompt_pay_twins(seed, per_recipe)
        + overpayment_twins(seed, per_recipe)
        + units_twins(seed, per_recipe)
        + managed_care_twins(seed, per_recipe)
        + discount_twins(seed, per_recipe)
    )
