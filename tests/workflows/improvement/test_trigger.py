"""A cycle's workflow id is named after the cycle, so a cycle starts at most once."""

from __future__ import annotations

from workflows.improvement.workflows import cycle_workflow_id


def test_a_cycles_workflow_id_names_its_cycle() -> None:
    assert cycle_workflow_id("rcm-promoted-v3") == "improve-rcm-promoted-v3"
