"""What the blind battery found: each blind desk's share of the reference's reward, its passes per
family, and the tasks where it beats doing nothing; the bars the card holds it to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import Field

from schemas.base import Contract

MAX_BLIND_SHARE = 0.05
"""Most of the reference's reward (on tasks the visible facts do not decide) a blind desk may earn."""
MAX_FAMILY_PASS_RATE = 0.10
"""Most of one family's tasks a blind desk may pass."""


class BlindRow(Contract):
    """One desk's score on one task."""

    task_id: str
    """The task."""
    family: str
    """Its family (`edge:<kind>`, `carc:<code>`)."""
    policy: str
    """`reference`, `nothing`, or a blind desk's name."""
    score: float
    """The admitted verifier's score."""
    passed: bool
    """Whether the verdict passed."""
    visible: str | None = None
    """Why the visible facts decide this task, when it is tagged so."""


class FamilyPasses(Contract):
    """A blind desk's passes in one family."""

    family: str
    """The family."""
    tasks: int
    """Its tasks."""
    passed: int
    """Tasks the blind desk passed."""

    @property
    def rate(self) -> float:
        return self.passed / self.tasks if self.tasks else 0.0


class BlindSummary(Contract):
    """One blind desk over every task."""

    policy: str
    """The blind desk."""
    reward: float
    """Its total score."""
    reference_reward: float
    """The reference's total score on the same tasks."""
    reward_undecided: float
    """Its total score on tasks the visible facts do not decide."""
    reference_undecided: float
    """The reference's total there."""
    passed: int
    """Tasks it passed."""
    above_nothing: list[str] = Field(default_factory=list)
    """Tasks (not tagged visible) where it scored above doing nothing."""
    above_nothing_visible: int = 0
    """Tagged tasks where it scored above doing nothing (allowed)."""
    families: list[FamilyPasses] = Field(default_factory=list)
    """Passes per family (untagged tasks), worst first."""

    @property
    def share(self) -> float:
        """Share of the reference's reward on every task."""
        return self.reward / self.reference_reward if self.reference_reward else 0.0

    @property
    def share_undecided(self) -> float:
        """Share of the reference's reward on the tasks the visible facts do not decide."""
        return self.reward_undecided / self.reference_undecided if self.reference_undecided else 0.0

    @property
    def worst_family(self) -> FamilyPasses | None:
        return self.families[0] if self.families else None


class BlindReport(Contract):
    """Every blind desk, the tagged tasks with their reasons, and the bars missed."""

    verifier: str
    """The verifier scored."""
    tasks: int
    """Tasks scored."""
    summaries: list[BlindSummary] = Field(default_factory=list)
    """One per blind desk."""
    visible: dict[str, str] = Field(default_factory=dict)
    """Tasks the visible facts legitimately decide → why."""

    def misses(self) -> list[str]:
        """The bars this report misses, in words."""
        out: list[str] = []
        for s in self.summaries:
            if s.share_undecided > MAX_BLIND_SHARE:
                out.append(
                    f"blind desk {s.policy} earns {s.share_undecided:.1%} of the reference's reward "
                    f"(bar {MAX_BLIND_SHARE:.0%})"
                )
            worst = s.worst_family
            if worst is not None and worst.rate > MAX_FAMILY_PASS_RATE:
                out.append(
                    f"blind desk {s.policy} passes {worst.passed}/{worst.tasks} of {worst.family} "
                    f"(bar {MAX_FAMILY_PASS_RATE:.0%})"
                )
            if s.above_nothing:
                out.append(f"blind desk {s.policy} beats doing nothing on {len(s.above_nothing)} tasks")
        return out


def summarize_blind(rows: Sequence[BlindRow], *, verifier: str, policies: Sequence[str]) -> BlindReport:
    """The report from every (task, desk) row."""
    by_task: dict[str, dict[str, BlindRow]] = defaultdict(dict)
    for row in rows:
        by_task[row.task_id][row.policy] = row
    summaries = []
    for policy in policies:
        reward = ref = reward_u = ref_u = 0.0
        passed = visible_above = 0
        above: list[str] = []
        fam_tasks: dict[str, int] = defaultdict(int)
        fam_passed: dict[str, int] = defaultdict(int)
        for task_id, runs in by_task.items():
            mine, gold, nothing = runs.get(policy), runs.get("reference"), runs.get("nothing")
            if mine is None or gold is None or nothing is None:
                continue
            reward, ref, passed = reward + mine.score, ref + gold.score, passed + mine.passed
            beats = mine.score > nothing.score + 1e-9
            if mine.visible is not None:
                visible_above += beats
                continue
            reward_u, ref_u = reward_u + mine.score, ref_u + gold.score
            fam_tasks[mine.family] += 1
            fam_passed[mine.family] += mine.passed
            if beats:
                above.append(task_id)
        families = sorted(
            (FamilyPasses(family=f, tasks=n, passed=fam_passed[f]) for f, n in fam_tasks.items()),
            key=lambda f: (-f.rate, f.family),
        )
        summaries.append(
            BlindSummary(
                policy=policy,
                reward=round(reward, 4),
                reference_reward=round(ref, 4),
                reward_undecided=round(reward_u, 4),
                reference_undecided=round(ref_u, 4),
                passed=passed,
                above_nothing=above,
                above_nothing_visible=visible_above,
                families=families,
            )
        )
    visible = {t: r.visible for t, runs in by_task.items() for r in runs.values() if r.visible is not None}
    return BlindReport(verifier=verifier, tasks=len(by_task), summaries=summaries, visible=visible)
