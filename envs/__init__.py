"""Environments: the contract, task sets, verifiers, gold validation and rollouts (design.md §5).

Each domain is one descriptor (`envs.domain.DomainDescriptor`) registered by one entry-point line
in pyproject.toml; `envs.toy` is the smallest complete example. See envs/INVARIANTS.md for the
contract every environment keeps.
"""

from envs.contract import Action, EndReason, Env, EnvError, Finish, Observation, Trajectory, Turn
from envs.domain import DOMAINS, Domain, DomainDescriptor, DomainRegistry, UnknownDomain
from envs.env import DEFAULT_MAX_STEPS, ToolEnv, replay
from envs.tasksets import TaskSet, TaskSetError, TaskSetRegistry, TaskSetTampered
from envs.validate import TaskValidation, validate_task, validate_tasks

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DOMAINS",
    "Action",
    "Domain",
    "DomainDescriptor",
    "DomainRegistry",
    "EndReason",
    "Env",
    "EnvError",
    "Finish",
    "Observation",
    "TaskSet",
    "TaskSetError",
    "TaskSetRegistry",
    "TaskSetTampered",
    "TaskValidation",
    "ToolEnv",
    "Trajectory",
    "Turn",
    "UnknownDomain",
    "replay",
    "validate_task",
    "validate_tasks",
]
