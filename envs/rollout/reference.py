"""A domain's reference specialist as a policy: its descriptor's reference plan through `PlanPolicy`.

Evaluation, the demo and the bridge's model-free mode all run this one policy. Work items the plan
cannot read (a missing office date, no write-off limit) are handed to a human, as an office would.
"""

from __future__ import annotations

from engine import PlanPolicy
from envs.domain import DOMAINS

UNPLANNABLE = (KeyError, ValueError, TypeError, AttributeError)
"""What a reference plan raises on a work item it cannot read."""


def reference_policy(domain: str) -> PlanPolicy:
    """The reference specialist of `domain`."""
    reference = DOMAINS.get(domain).reference
    if reference is None:
        raise LookupError(f"domain {domain!r} has no reference specialist")
    return PlanPolicy(reference.model, reference.plan, cannot_plan=UNPLANNABLE)
