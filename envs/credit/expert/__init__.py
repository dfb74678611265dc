"""The credit expert set: hand-written cases with hand-worked figures, every acceptable decision as
a gold trajectory, and wrong moves an analyst might make: 22 in Python (`cases_a`, `cases_b`) and
the rest as data files (`cases/*.json`, read by `data`), each with its source."""

from envs.credit.expert.cases_a import CASES_A
from envs.credit.expert.cases_b import CASES_B
from envs.credit.expert.data import load_case_files
from envs.credit.expert.model import ExpertCase, Move


def load_expert_cases() -> list[ExpertCase]:
    """Every case of the credit expert set, in id order."""
    written = [make() for make in (*CASES_A, *CASES_B)]
    return sorted((*written, *load_case_files()), key=lambda case: case.id)


__all__ = ["ExpertCase", "Move", "load_expert_cases"]
