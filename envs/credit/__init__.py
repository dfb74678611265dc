"""The private-credit underwriting environment (`credit`): generator, reference analyst, verifier.

`DOMAIN` is its descriptor (registered in pyproject.toml): the tools, sim and live backends, the
`credit.v1` verifier, the `credit-base`, `credit-edge` and `credit-twins` task sets, the scripted baseline
policies, mutants and exploits, its good and bad outcome kinds, how its edge cases become tasks
(`promotion.py`), its expert set and what the verifier card runs.
"""

from __future__ import annotations

from envs.credit.demo import DEMO
from envs.credit.domain import DOMAIN as WORLD
from envs.credit.domain import CreditDomain
from envs.credit.expert import load_expert_cases
from envs.credit.exploits import EXPLOITS
from envs.credit.mutants import OPERATORS
from envs.credit.policies import BASELINES
from envs.credit.promotion import PROMOTION
from envs.credit.solver import REFERENCE, reference_plan
from envs.credit.tasks import generate_base, generate_edge
from envs.credit.twins import generate_twins
from envs.credit.verifier import CREDIT_V1
from envs.domain import CardParts, DomainDescriptor, Reference
from envs.verifiers.outcome_kinds import OutcomeKinds

DOMAIN = DomainDescriptor(
    world=WORLD,
    task_sets={
        "credit-base": (generate_base, "nine ways a package lands in a decision class, 25 tasks each"),
        "credit-edge": (
            generate_edge,
            "ten credit edge families (the brief's eight, QoE answers, cure rights), 8 tasks each, held out",
        ),
        "credit-twins": (
            generate_twins,
            "counterfactual twins: packages whose flags read alike, evidence apart, 8 pairs per family",
        ),
    },
    policies={"reference": (REFERENCE, "the reference analyst (gold solutions)"), **BASELINES},
    verifiers=(CREDIT_V1,),
    mutants=OPERATORS,
    exploits=EXPLOITS,
    promotion=PROMOTION,
    outcome_kinds=OutcomeKinds(  # a breach or a default sinks the recommendation for good (`outcomes.held_up`)
        good=frozenset({"compliance_certificate"}),
        bad=frozenset({"covenant_breach", "default"}),
        lasting=frozenset({"covenant_breach", "default"}),
    ),
    card=CardParts(
        "credit.v1",
        ("credit.v1",),
        {
            "credit-base": (generate_base, "per_recipe"),
            "credit-edge": (generate_edge, "per_kind"),
            "credit-twins": (generate_twins, "per_kind"),
        },
    ),
    reference=Reference(reference_plan, "credit-reference-analyst"),
    expert_cases=load_expert_cases,
    demo=DEMO,
    sandbox="adapters.credit.sandbox.app:SANDBOX",
)

__all__ = [
    "BASELINES",
    "CREDIT_V1",
    "DOMAIN",
    "REFERENCE",
    "CreditDomain",
    "generate_base",
    "generate_edge",
    "generate_twins",
    "reference_plan",
]
