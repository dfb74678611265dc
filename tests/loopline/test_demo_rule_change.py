"""The demo's payer rule change: it decides the claims it names, and its value is one no training
world holds, so the detector sees it."""

from __future__ import annotations

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SEED_CASES, World, seed_world
from adapters.rcm.sim import SimBackend
from envs.contract import Finish, Turn
from envs.rcm import generate_base
from envs.rcm.demo import training_vocabulary
from envs.rcm.rule_change import RETRO_WINDOW_SHORTENED
from envs.rcm.solver import reference_plan
from envs.rcm.tasks import work_item_for
from schemas.tools import SideEffect

CHANGE = RETRO_WINDOW_SHORTENED
READS = frozenset(spec.name for spec in RCM_TOOLS if spec.side_effect is SideEffect.READ)


def writes(world: World, claim_id: str) -> list[str]:
    """The writes the reference specialist makes on `claim_id` in `world`."""
    toolbox, item = Toolbox(RCM_TOOLS, SimBackend(world)), work_item_for(world, claim_id)
    turns: tuple[Turn, ...] = ()
    for _ in range(40):
        action = reference_plan(item, turns)
        if isinstance(action, Finish):
            break
        turns = (*turns, Turn(call=action, result=toolbox.call(action)))
    return [t.call.name for t in turns if t.call.name not in READS and t.result.outcome.value == "ok"]


def test_the_change_turns_a_recoverable_claim_into_a_write_off() -> None:
    [claim] = CHANGE.affected_claims
    assert writes(seed_world(), claim) == ["request_authorization", "submit_replacement_claim"]
    assert writes(CHANGE.apply(seed_world()), claim) == ["post_write_off"]


def test_the_change_decides_no_other_claim_of_the_demo_queue() -> None:
    changed = CHANGE.apply(seed_world())
    for claim in set(SEED_CASES) - set(CHANGE.affected_claims):
        assert writes(changed, claim) == writes(seed_world(), claim), claim


def test_training_holds_every_seed_payer_window_but_not_the_new_one() -> None:
    known = set(training_vocabulary(generate_base(seed=0))[CHANGE.field])
    seed_values = {str(getattr(p.rules, CHANGE.field)) for p in seed_world().payers.values()}
    assert seed_values <= known
    assert str(CHANGE.value) not in known


def test_the_change_is_described_with_its_old_and_new_value() -> None:
    line = CHANGE.describe(seed_world())
    assert line == "Bluestone Health Plan (BLUE) sets retro_auth_window_days to 5 (was 30)"
