"""Twin pairs drawn once and built both ways: edge kinds whose builder takes a flag that flips the
deciding evidence (the contracted rate of a take-back or of a negotiated discount, a prompt-pay
rule, a payer's overpayment letter, the minutes a visit note documents, the managed-care plan
eligibility shows), so the work item, the 835, the claim and the document list match and only that
evidence differs."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from envs.adversarial.twins import TWIN_TAG
from envs.rcm.casekit import Case, Ctx
from envs.rcm.tasks import draw, to_task
from envs.rcm.vocab import COMMERCIAL
from schemas.tasks import Task


def one_draw_both_ways(
    seed: int,
    count: int,
    recipe: str,
    kind: str,
    builds: tuple[Callable[[Ctx], Case], Callable[[Ctx], Case]],
    *,
    category: str = "45",
    payers: tuple[str, ...] | None = COMMERCIAL,
) -> list[Task]:
    """`count` twin pairs (`rcm-twins-<recipe>-<i>-a` built by `builds[0]`, `-b` by `builds[1]`) of
    the edge kind `kind` (CARC category `category`, drawn among `payers`): each pair is one seeded
    draw built both ways, so only what the build's flag decides differs between the twins."""
    out: list[Task] = []
    for index in range(count):
        set_id = f"{recipe}-{index:03d}"
        for suffix, build in zip(("a", "b"), builds, strict=True):
            case = draw("rcm-twins", seed, kind, index, build, payers)
            out.append(
                to_task(
                    case,
                    task_id=f"rcm-twins-{set_id}-{suffix}",
                    seed=seed,
                    distribution="twins",
                    category=category,
                    extra_tags=(f"edge:{kind}", f"{TWIN_TAG}{set_id}", f"twin-recipe:{recipe}"),
                )
            )
    return out


def take_back_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-take_back-<i>-a` supported, `-b` not): one draw of the edge
    kind `reversal_take_back` built both ways, so the 835, the claim and the documents match and
    only the contracted rate on the fee schedule differs (`envs.rcm.reversals`)."""
    from envs.rcm.reversals import reversal_take_back

    builds = (partial(reversal_take_back, supported=True), partial(reversal_take_back, supported=False))
    return one_draw_both_ways(seed, count, "take_back", "reversal_take_back", builds)


def prompt_pay_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-prompt_pay-<i>-a` interest owed, `-b` not): a clean claim paid
    31 to 44 days after its receipt, under a 30-day or a 45-day prompt-pay rule; only the payer's
    rules differ (`envs.rcm.prompt_pay`)."""
    from envs.rcm.prompt_pay import prompt_pay_case

    builds = (partial(prompt_pay_case, owed=True), partial(prompt_pay_case, owed=False))
    return one_draw_both_ways(seed, count, "prompt_pay", "late_clean_claim", builds)


def overpayment_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-overpayment-<i>-a` left to the offset, `-b` refunded): a claim
    paid twice whose payer letter (same title and date) says it offsets or asks for a refund
    (`envs.rcm.overpayments`)."""
    from envs.rcm.overpayments import overpayment_case

    builds = (partial(overpayment_case, offset=True), partial(overpayment_case, offset=False))
    return one_draw_both_ways(seed, count, "overpayment", "paid_twice", builds)


def units_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-units-<i>-a` appealed, `-b` written off): CO-151 on units of a
    timed code, the visit note (same title and date) documenting minutes that support every unit
    billed or only the units paid (`envs.rcm.units`)."""
    from envs.rcm.units import units_case

    builds = (partial(units_case, supported=True), partial(units_case, supported=False))
    return one_draw_both_ways(seed, count, "units", "units_reduced", builds, category="151", payers=None)


def managed_care_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-managed_care-<i>-a` billed to the plan, `-b` to a human):
    Medicare's CO-24, the patient's Medicare Advantage plan active on the date of service or ended
    before it; only eligibility differs (`envs.rcm.managed_care`)."""
    from envs.rcm.managed_care import managed_care_case

    builds = (partial(managed_care_case, enrolled=True), partial(managed_care_case, enrolled=False))
    return one_draw_both_ways(
        seed, count, "managed_care", "managed_care_plan", builds, category="24", payers=("MCR",)
    )


def discount_twins(seed: int = 0, count: int = 8) -> list[Task]:
    """`count` twin pairs (`rcm-twins-discount-<i>-a` posted as contractual, `-b` appealed): a CO-131
    negotiated discount whose allowed amount is, or falls below, the contracted rate on the payer's
    fee schedule; only the fee schedule differs (`envs.rcm.discounts`)."""
    from envs.rcm.discounts import discount_case

    builds = (partial(discount_case, matches=True), partial(discount_case, matches=False))
    return one_draw_both_ways(seed, count, "discount", "negotiated_discount", builds, category="131")
