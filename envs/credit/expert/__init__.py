"""The credit expert set: 22 hand-written cases (`cases_a`, `cases_b`) with hand-worked figures,
every acceptable decision as a gold trajectory, and wrong moves an analyst might make."""

from envs.credit.expert.cases_a import CASES_A
from envs.credit.expert.cases_b import CASES_B
from envs.credit.expert.model import ExpertCase, Move


def load_expert_cases() -> list[ExpertCase]:
    """Every case of the credit expert set, in id order."""
    return sorted((make() for make in (*CASES_A, *CASES_B)), key=lambda case: case.id)


__all__ = ["ExpertCase", "Move", "load_expert_cases"]
