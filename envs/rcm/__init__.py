"""The healthcare denial-management environment (`rcm`): generator, reference solver, verifier.

`DOMAIN` is its descriptor (registered in pyproject.toml): the tools, sim and live backends, the
`rcm.v1` and `rcm.v2` verifiers, the `rcm-base`, `rcm-edge`, `rcm-queue` and `rcm-twins` task sets, the
scripted baseline policies, mutants and exploits, its good and bad outcome kinds, how its edge
cases become tasks (`promotion.py`), its expert set and what the verifier card runs.
"""

from __future__ import annotations

from envs.domain import (
    CardParts,
    DomainDescriptor,
    Reference,
    TaskCheck,
)
from envs.rcm.demo import DEMO
from envs.rcm.domain import DOMAIN as WORLD
from envs.rcm.domain import RcmDomain
from envs.rcm.expert import load_expert_cases
from envs.rcm.exploits import EXPLOITS
from envs.rcm.mutants import OPERATORS
from envs.rcm.policies import BASELINES
from envs.rcm.promotion import PROMOTION
from envs.rcm.solver import REFERENCE, reference_plan
from envs.rcm.tasks import generate_base, generate_edge, generate_queue
from envs.rcm.twins import generate_twin_set, generate_twins
from envs.rcm.verifier import RCM_V1, RCM_V2
from envs.rcm.x12check import remittance_problems
from envs.verifiers.outcome_kinds import OutcomeKinds

DOMAIN = DomainDescriptor(
    world=WORLD,
    task_sets={
        "rcm-base": (generate_base, "one row of the brief's CARC table per category, 19 tasks each"),
        "rcm-edge": (generate_edge, "the brief's production edge cases, 8 tasks per kind, held out"),
        "rcm-queue": (generate_queue, "work queues of 3 to 6 claims whose deadlines decide the order, 48"),
        "rcm-twins": (
            generate_twin_set,
            "counterfactual twins: pairs a blind desk cannot tell apart, 8 per recipe",
        ),
    },
    policies={"reference": (REFERENCE, "the reference specialist (gold solutions)"), **BASELINES},
    verifiers=(RCM_V1, RCM_V2),
    mutants=OPERATORS,
    exploits=EXPLOITS,
    promotion=PROMOTION,
    outcome_kinds=OutcomeKinds(  # the payer paid or reversed its denial; denied again, appeal upheld, rejected
        good=frozenset({"paid", "appeal_won", "approved", "overturned"}),
        bad=frozenset({"denied", "appeal_lost", "rejected"}),
    ),
    card=CardParts(
        "rcm.v2",
        ("rcm.v1", "rcm.v2"),
        {
            "rcm-base": (generate_base, "per_carc"),
            "rcm-edge": (generate_edge, "per_kind"),
            "rcm-queue": (generate_queue, "queues"),
            "rcm-twins": (generate_twin_set, "per_kind"),
        },
    ),
    reference=Reference(reference_plan, "rcm-reference-specialist"),
    task_check=TaskCheck(lambda task: list(remittance_problems(task)), "every remittance passes pyx12"),
    expert_cases=load_expert_cases,
    demo=DEMO,
    sandbox="adapters.rcm.sandbox.app:SANDBOX",
)

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
    "generate_twins",
    "reference_plan",
]
