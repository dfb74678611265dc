"""The blind-policy battery: blind desks read only the visible records, the learned desk is fitted
on one seed and scored on another, and the report counts by the project's rule."""

from __future__ import annotations

import pytest

from envs.adversarial.blind import blind_kit, blind_report, fit
from envs.adversarial.blind_report import BlindRow, summarize_blind
from envs.domain import DOMAINS
from envs.rcm.blind import CODE_TABLE_POLICY, IGNORING_CODE_TABLE_POLICY, VISIBLE_READS
from envs.rcm.intents import WRITES
from envs.rcm.tasks import generate_base
from envs.rollout import play
from envs.verifiers.base import VERIFIERS
from envs.verifiers.evidence import deciding_facts
from schemas.tasks import Task
from schemas.tools import SideEffect

READS = frozenset(s.name for s in DOMAINS.get("rcm").tool_specs() if s.side_effect is SideEffect.READ)


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return generate_base(0, 1)


def test_a_blind_desk_never_reads_evidence(tasks: list[Task]) -> None:
    kit = blind_kit("rcm")
    assert kit is not None
    rcm = DOMAINS.get("rcm")
    for task in tasks:
        blind = [p for p in kit.fixed if p.ref.model.startswith("blind:")]
        for policy in (*blind, *(kit.moves[m] for m in ("appeal:timely_filing", "post_remit"))):
            played = play(task, policy, domain=rcm)
            trajectory = played.trajectory
            assert played.error is None
            assert {t.call.name for t in trajectory.turns} <= {
                *VISIBLE_READS,
                *WRITES,
                "request_authorization",
            }


def test_an_evidence_ignoring_desk_reads_everything_and_decides_as_the_blind_one(tasks: list[Task]) -> None:
    """It makes every read a deciding fact asks for, so no evidence check fails; it writes only what
    the 835 and the claim show, so where a deciding fact decides its write, the write's text fails
    (`content.rcm.specific`) even where the code table's move is right."""
    rcm = DOMAINS.get("rcm")
    for task in tasks:
        ignoring = play(task, IGNORING_CODE_TABLE_POLICY, domain=rcm).trajectory
        blind = play(task, CODE_TABLE_POLICY, domain=rcm).trajectory
        writes = [t.call.name for t in ignoring.turns if t.call.name not in READS]
        assert writes == [t.call.name for t in blind.turns if t.call.name not in READS]
        assert {"get_payer_rules", "get_authorizations", "get_claim_status"} <= {
            t.call.name for t in ignoring.turns
        }
        verdict = VERIFIERS.get("rcm.v2").score(task, ignoring)
        failed = [c.name for c in verdict.checks if not c.passed]
        assert not [name for name in failed if name.startswith("evidence.")], (task.task_id, failed)
        if deciding_facts(task) and writes:
            assert not verdict.passed, task.task_id


def test_the_learned_desk_keeps_the_best_move_per_signature(tasks: list[Task]) -> None:
    table = fit(tasks[:6], "rcm.v2")
    assert "" in table, "the coarsest signature always has a move"
    kit = blind_kit("rcm")
    assert kit is not None and set(table.values()) <= set(kit.moves)


def test_the_battery_scores_blind_desks_next_to_the_reference(tasks: list[Task]) -> None:
    report = blind_report(tasks[:4], generate_base(1, 1)[:4], "rcm.v2")
    assert report is not None and report.tasks == 4
    assert {s.policy for s in report.summaries} == {
        "blind:code_table",
        "blind:label_desk",
        "ignoring:code_table",
        "ignoring:label_desk",
        "blind:learned",
    }
    assert all(s.reference_reward == 4.0 for s in report.summaries)


def row(task: str, policy: str, score: float, visible: str | None = None) -> BlindRow:
    return BlindRow(
        task_id=task, family="carc:1", policy=policy, score=score, passed=score == 1.0, visible=visible
    )


def test_tasks_the_visible_facts_decide_are_allowed_and_listed() -> None:
    rows = [
        row("a", "reference", 1.0),
        row("a", "nothing", 0.0),
        row("a", "blind", 1.0, "pr-share"),
        row("b", "reference", 1.0),
        row("b", "nothing", 0.0),
        row("b", "blind", 0.0),
    ]
    report = summarize_blind(rows, verifier="v", policies=["blind"])
    summary = report.summaries[0]
    assert summary.share == 0.5 and summary.share_undecided == 0.0
    assert summary.above_nothing == [] and summary.above_nothing_visible == 1
    assert report.visible == {"a": "pr-share"} and report.misses() == []


def test_a_blind_pass_on_an_undecided_task_misses_every_bar() -> None:
    rows = [row("b", "reference", 1.0), row("b", "nothing", 0.0), row("b", "blind", 1.0)]
    misses = summarize_blind(rows, verifier="v", policies=["blind"]).misses()
    assert len(misses) == 3
