"""The healthcare denial-management environment (`rcm`): generator, reference solver, verifier.

Importing it registers the `rcm` domain, the `rcm.v1` and `rcm.v2` verifiers, the `rcm-base`, `rcm-edge` and
`rcm-queue` task sets, the scripted baseline policies, its good and bad outcome kinds and
how its edge cases become tasks (`promotion.py`).
"""

from envs.catalog import register_policy, register_task_set
from envs.domain import DOMAINS
from envs.promotion import register_promotion
from envs.rcm.domain import DOMAIN, RcmDomain
from envs.rcm.policies import BASELINES
from envs.rcm.promotion import PROMOTION
from envs.rcm.solver import REFERENCE, reference_plan
from envs.rcm.tasks import generate_base, generate_edge, generate_queue
from envs.rcm.verifier import RCM_V1, RCM_V2
from envs.verifiers.base import VERIFIERS
from envs.verifiers.outcome_kinds import OutcomeKinds, register_outcome_kinds

DOMAINS.register(DOMAIN)
VERIFIERS.register(RCM_V1)
VERIFIERS.register(RCM_V2)
register_task_set("rcm-base", generate_base, "one row of the brief's CARC table per category, 19 tasks each")
register_task_set("rcm-edge", generate_edge, "the brief's production edge cases, 8 tasks per kind, held out")
register_task_set(
    "rcm-queue", generate_queue, "work queues of 3 to 6 claims whose deadlines decide the order, 48"
)
register_outcome_kinds(
    "rcm",
    OutcomeKinds(  # the payer paid or reversed its denial; denied again, appeal upheld, rejected
        good=frozenset({"paid", "appeal_won", "approved", "overturned"}),
        bad=frozenset({"denied", "appeal_lost", "rejected"}),
    ),
)
register_promotion(PROMOTION)
register_policy("rcm", "reference", REFERENCE, "the reference specialist (gold solutions)")
for _name, (_policy, _description) in BASELINES.items():
    register_policy("rcm", _name, _policy, _description)

__all__ = [
    "BASELINES",
    "DOMAIN",
    "RCM_V1",
    "RCM_V2",
    "REFERENCE",
    "RcmDomain",
    "generate_base",
    "generate_edge",
    "generate_queue",
    "reference_plan",
]
