"""A few generated rcm tasks for the interop tests."""

from __future__ import annotations

import pytest

from envs.rcm.tasks import generate_base
from schemas.tasks import Task


@pytest.fixture(scope="session")
def rcm_tasks() -> list[Task]:
    """One rcm-base task for each of the first CARC rows."""
    return generate_base(0, per_carc=1)[:6]
