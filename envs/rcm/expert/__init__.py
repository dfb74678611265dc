"""The rcm expert set: hand-written denial cases with outcome specs, gold trajectories for every
acceptable resolution, and wrong moves, each citing the rule of the domain brief it exercises."""

from envs.rcm.expert.loader import (
    ExpertCaseError,
    case_files,
    load_case,
    load_expert_cases,
    load_pending_cases,
)
from envs.rcm.expert.model import GENERATOR, VERIFIER, Citation, ExpertCase, Trajectory
from envs.rcm.expert.patches import PatchError, apply_patches

__all__ = [
    "GENERATOR",
    "VERIFIER",
    "Citation",
    "ExpertCase",
    "ExpertCaseError",
    "PatchError",
    "Trajectory",
    "apply_patches",
    "case_files",
    "load_case",
    "load_expert_cases",
    "load_pending_cases",
]
