"""Generated rcm and credit tasks, and the demo episodes of the interop tests: rollouts of the
reference policy (and of the policy that does nothing, for verdicts that fail) on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.credit import generate_base as generate_credit
from envs.rcm.tasks import generate_base
from envs.rollout.episode import EpisodeRecord
from envs.rollout.policy import NOOP
from envs.rollout.reference import reference_policy
from envs.rollout.runner import RolloutConfig, rollout_one
from schemas.tasks import Task


@pytest.fixture(scope="session")
def rcm_tasks() -> list[Task]:
    """One rcm-base task for each of the first CARC rows."""
    return generate_base(0, per_carc=1)[:6]


@pytest.fixture(scope="session")
def credit_tasks() -> list[Task]:
    """One credit-base task of each of the first recipes."""
    return generate_credit(0, per_recipe=1)[:4]


@pytest.fixture(scope="session")
def demo_episodes(rcm_tasks: list[Task], credit_tasks: list[Task]) -> list[EpisodeRecord]:
    """The reference policy on every task, and the empty policy on one task of each domain."""
    config = RolloutConfig()
    records = [rollout_one(t, reference_policy(t.domain), config) for t in [*rcm_tasks, *credit_tasks]]
    return records + [rollout_one(t, NOOP, config) for t in (rcm_tasks[0], credit_tasks[0])]


def write_tasks(path: Path, tasks: list[Task]) -> Path:
    """A task set file (`.jsonl`) the CLI reads with `--task-set`."""
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    return path
