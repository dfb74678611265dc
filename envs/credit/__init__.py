"""The private-credit underwriting environment (`credit`): generator, reference analyst, verifier.

Importing it registers the `credit` domain, the `credit.v1` verifier, the `credit-base` and
`credit-edge` task sets, the scripted baseline policies, its good and bad outcome kinds
and how its edge cases become tasks (`promotion.py`).
"""

from envs.catalog import register_policy, register_task_set
from envs.credit.domain import DOMAIN, CreditDomain
from envs.credit.policies import BASELINES
from envs.credit.promotion import PROMOTION
from envs.credit.solver import REFERENCE, reference_plan
from envs.credit.tasks import generate_base, generate_edge
from envs.credit.verifier import CREDIT_V1
from envs.domain import DOMAINS
from envs.promotion import register_promotion
from envs.verifiers.base import VERIFIERS
from envs.verifiers.outcome_kinds import OutcomeKinds, register_outcome_kinds

DOMAINS.register(DOMAIN)
VERIFIERS.register(CREDIT_V1)
register_task_set(
    "credit-base", generate_base, "nine ways a package lands in a decision class, 25 tasks each"
)
register_task_set(
    "credit-edge", generate_edge, "the brief's eight credit edge families, 8 tasks each, held out"
)
register_outcome_kinds(
    "credit",
    OutcomeKinds(  # a breach or a default sinks the recommendation for good (`outcomes.held_up`)
        good=frozenset({"compliance_certificate"}),
        bad=frozenset({"covenant_breach", "default"}),
        lasting=frozenset({"covenant_breach", "default"}),
    ),
)
register_promotion(PROMOTION)
register_policy("credit", "reference", REFERENCE, "the reference analyst (gold solutions)")
for _name, (_policy, _description) in BASELINES.items():
    register_policy("credit", _name, _policy, _description)

__all__ = [
    "BASELINES",
    "CREDIT_V1",
    "DOMAIN",
    "REFERENCE",
    "CreditDomain",
    "generate_base",
    "generate_edge",
    "reference_plan",
]
