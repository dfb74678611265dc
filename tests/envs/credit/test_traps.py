"""Generator traps: flags that mislead in most generated packages, so that a desk underwriting on
the flags (or any blind move) passes only the tagged tasks whose flags tell the truth."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from adapters.credit.answers import answered_all
from adapters.credit.models import CreditPackage, FundPolicy
from envs.adversarial.blind import blind_report
from envs.credit.assess import assess
from envs.credit.cases import BASE, base_case
from envs.credit.exploits import EXPLOITS
from envs.credit.flags import FLAGS_HOLD, flagged, flags_hold, on_flags
from envs.credit.ratios import exact, inputs_for
from envs.credit.tasks import generate_base, generate_edge
from envs.credit.traps import TRAPS
from envs.credit.worldgen import TODAY
from envs.domain import DOMAINS
from envs.rollout import play
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task

POLICY = FundPolicy()


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return [*generate_base(0, 3), *generate_edge(0, 1)]


def _honest(trap: str, i: int) -> tuple[CreditPackage, random.Random] | None:
    rng = random.Random(f"trap:{trap}:{i}")
    package, _ = base_case(BASE[0], rng, f"PKG-{9000 + i}", POLICY)
    # Drawn with a trap already: only an honest package shows what one trap does.
    return (package, rng) if flags_hold(package, POLICY, TODAY) else None


@pytest.mark.parametrize("trap", ["equity_cure", "recurs_across_years", "support_short"])
def test_a_bridge_trap_leaves_the_right_answer_and_moves_the_flags_beyond_tolerance(trap: str) -> None:
    found = 0
    for i in range(20):
        if (drawn := _honest(trap, i)) is None:
            continue
        package, rng = drawn
        right = assess(package, POLICY, TODAY)
        trapped = TRAPS[trap](package, rng)
        after = assess(trapped, POLICY, TODAY)
        line = trapped.bridge.addbacks[-1]
        tied = line.support_amount or 0.0  # only a line whose documents tie to part of it counts, that far
        assert right.figures is not None and after.figures is not None
        assert after.figures.adjusted_ebitda == right.figures.adjusted_ebitda + tied
        assert line.supported and not line.recurring and line.category == "non_recurring"
        assert not flags_hold(trapped, POLICY, TODAY)
        on = on_flags(trapped, POLICY)
        assert on is not None and on.figures is not None
        gap = on.figures.adjusted_ebitda / after.figures.adjusted_ebitda - 1
        assert gap > POLICY.ratio_tolerance_pct / 100, "the flags' figures fall outside the tolerance"
        found += 1
    assert found, "no honest package drawn to set the trap in"


def test_a_refinancing_the_sources_do_not_cover_is_asked_for_and_leaves_debt() -> None:
    found = 0
    for i in range(20):
        if (drawn := _honest("unfunded_refinancing", i)) is None:
            continue
        package, rng = drawn
        trapped = TRAPS["unfunded_refinancing"](package, rng)
        assert trapped.sources_and_uses is None and any(d.refinanced for d in trapped.existing_debt)
        right = assess(trapped, POLICY, TODAY)
        assert right.ask_first == ("sources_and_uses",)
        after = exact(inputs_for(answered_all(trapped, right.ask_first), POLICY))
        flags = exact(inputs_for(flagged(trapped), POLICY))
        assert after.total_debt > flags.total_debt * (1 + Fraction(str(POLICY.ratio_tolerance_pct)) / 100)
        assert not flags_hold(trapped, POLICY, TODAY)
        found += 1
    assert found, "no honest package drawn to set the trap in"


def test_most_generated_tasks_carry_flags_that_mislead(tasks: list[Task]) -> None:
    tagged = [t for t in tasks if FLAGS_HOLD in t.tags]
    assert 0 < len(tagged) <= 0.25 * len(tasks)


def test_following_the_flags_passes_only_the_tasks_whose_flags_hold(tasks: list[Task]) -> None:
    follow = next(p for p in EXPLOITS if p.ref.model == "follow_the_flags")
    domain = DOMAINS.get("credit")
    passed = {
        t.task_id
        for t in tasks
        if VERIFIERS.get("credit.v1").score(t, play(t, follow, domain=domain).trajectory).passed
    }
    tagged = {t.task_id for t in tasks if FLAGS_HOLD in t.tags}
    assert passed <= tagged
    assert passed, "the tag names tasks the flags really decide"


def test_no_blind_desk_passes_a_task_whose_flags_mislead(tasks: list[Task]) -> None:
    report = blind_report(tasks, [*generate_base(1, 2), *generate_edge(1, 1)], "credit.v1")
    assert report is not None and report.tasks == len(tasks)
    assert {s.policy for s in report.summaries} == {"blind:flags", "blind:learned"}
    assert report.misses() == []
    for s in report.summaries:
        assert s.reward_undecided == 0.0 and s.reference_undecided > 0
        assert s.above_nothing == []
    flags = next(s for s in report.summaries if s.policy == "blind:flags")
    assert flags.above_nothing_visible > 0, "on tasks whose flags hold, the flags decide"
    assert set(report.visible.values()) == {"flags-hold"}
