"""How a credit edge case becomes a task (`envs.promotion.Promotion`): the draft rebuilt from the
episode's recorded answers (`adapters.credit.drafts`), and an outcome spec suggested the way the
generator writes one (`envs.credit.specs.outcome_spec`) from the environment's own assessment of the
rebuilt package: the information policy says to ask for first, nothing asked without cause, and
the acceptable decision classes with their figures, conditions and committee reasons. The gold is
the reference analyst's work on the task. Pure.

The credit environment has no fault plan, so live-system failures the draft recorded (a statement
read answered 503, a committee hand-off that timed out) are reproduced when the draft's fidelity is
measured but are not replayed in the task: the task is the package, worked without them.
"""

from __future__ import annotations

from adapters.credit.drafts import credit_rebuild
from adapters.credit.world import World
from adapters.drafting.draft import TaskDraft
from envs.credit.assess import assess
from envs.credit.domain import DOMAIN
from envs.credit.specs import outcome_spec
from envs.credit.tasks import VERIFIER, solve, work_item
from envs.promotion import DomainPromotion
from schemas.tasks import VerifierSpec
from schemas.tools import ToolCall

_REBUILD = credit_rebuild(lambda world, item: work_item(world.package(item.item_id), world.today.isoformat()))


def suggested_spec(draft: TaskDraft) -> tuple[VerifierSpec, tuple[ToolCall, ...]]:
    """The environment's assessment of the rebuilt package as a spec, and the reference analyst's
    calls under it (raises `ValueError` when the draft's package is not in its world)."""
    world = World.from_snapshot(draft.world)
    package = world.packages.get(draft.work_item.item_id)
    if package is None:
        raise ValueError(f"draft {draft.draft_id} has no package {draft.work_item.item_id}")
    a = assess(package, world.policy, world.today)
    spec = VerifierSpec(
        verifier=VERIFIER,
        outcome=outcome_spec(a, world.policy),
        must_escalate=True if a.classes == ("escalate",) else (None if "escalate" in a.classes else False),
        params={
            "classes": list(a.classes),
            "ask_first": list(a.ask_first),
            "resolution": "|".join(a.classes),
        },
    )
    return spec, solve(PROMOTION.candidate_task(draft, spec))


PROMOTION = DomainPromotion("credit", _REBUILD, [spec.name for spec in DOMAIN.tool_specs()], suggested_spec)
