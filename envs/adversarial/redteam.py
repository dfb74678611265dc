"""The red-team hook: an attacker proposes trajectories for a task from what an agent would see
(the work item and the tool definitions); the runner replays each proposal, scores it with every
verifier, and records any that beats doing nothing as a finding (JSONL, one finding a line).

`ScriptedAttacker` serves tests and hand-written attacks; `OpenAICompatibleAttacker`
(`envs.adversarial.llm_attacker`) asks a model. Nothing runs an attacker unless asked to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from envs.adversarial.report import RedTeamFinding, RedTeamReport
from envs.adversarial.targets import changes_outcome, gold_views, score_all, verifier_names
from envs.domain import DOMAINS
from envs.env import ToolEnv, replay
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall

Proposal = tuple[ToolCall, ...]


class AttackerError(RuntimeError):
    """The attacker could not propose anything for a task (unreachable endpoint, bad answer)."""


class Attacker(Protocol):
    """Proposes trajectories meant to earn reward without doing the work."""

    @property
    def name(self) -> str:
        """Recorded with every finding."""
        ...

    def propose(self, work_item: WorkItem, tools: Sequence[Mapping[str, Any]]) -> list[Proposal]:
        """Candidate trajectories (tool calls, in order) for the work item."""
        ...


Plan = Callable[[WorkItem, Sequence[Mapping[str, Any]]], list[Proposal]]


@dataclass(frozen=True)
class ScriptedAttacker:
    """An attacker from a plain function."""

    name: str
    plan: Plan

    def propose(self, work_item: WorkItem, tools: Sequence[Mapping[str, Any]]) -> list[Proposal]:
        return self.plan(work_item, tools)


def offered_tools(task: Task) -> list[dict[str, Any]]:
    """The task's tools in OpenAI format, exactly as an agent is offered them on reset."""
    return list(ToolEnv(DOMAINS.get(task.domain)).reset(task).tools)


def run_redteam(
    tasks: Sequence[Task],
    attacker: Attacker,
    verifiers: Sequence[str] | None = None,
    *,
    findings_path: Path | None = None,
    seed: int = 0,
) -> RedTeamReport:
    """Attack every task; findings go to `findings_path` (appended, one JSON object a line) as they
    are found, and into the report."""
    names = verifier_names(tasks, verifiers)
    findings: list[RedTeamFinding] = []
    errors: list[str] = []
    proposals = 0
    for task in tasks:
        try:
            domain = DOMAINS.get(task.domain)
            candidates = attacker.propose(task.work_item, offered_tools(task))
            golds = gold_views(task, domain, seed=seed)
        except Exception as exc:  # one task's failure is recorded; the run goes on
            errors.append(f"{task.task_id}: {type(exc).__name__}: {exc}")
            continue
        floor = score_all(task, replay(domain, task, (), seed=seed), names)
        for index, calls in enumerate(candidates):
            proposals += 1
            trajectory = replay(domain, task, tuple(calls), seed=seed)
            matches = not changes_outcome(domain.outcome_view(trajectory.final_world), golds)
            for name, verdict in score_all(task, trajectory, names).items():
                base = floor[name]
                if isinstance(verdict, str) or isinstance(base, str):
                    errors.append(
                        f"{task.task_id} proposal {index} [{name}]: {verdict if isinstance(verdict, str) else base}"
                    )
                    continue
                if verdict.score > base.score:
                    finding = RedTeamFinding(
                        task_id=task.task_id,
                        attacker=attacker.name,
                        proposal=index,
                        verifier=name,
                        score=verdict.score,
                        do_nothing=base.score,
                        outcome_matches_gold=matches,
                        calls=tuple(calls),
                        verdict=verdict,
                    )
                    findings.append(finding)
                    if findings_path is not None:
                        _append(findings_path, finding)
    return RedTeamReport(
        attacker=attacker.name,
        tasks=len(tasks),
        proposals=proposals,
        findings=tuple(findings),
        errors=tuple(errors),
    )


def _append(path: Path, finding: RedTeamFinding) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(finding.model_dump_json() + "\n")
