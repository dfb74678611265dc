"""A pluggable rubric judge for free text: deterministic rubrics stay the default.

A `Judge` reads one piece of writing against one rubric and says pass or fail with a reason.
`judged_content(judge, rubrics)` turns it into a verifier rule: one `content.judge.<tool>` check per
kind of writing the trajectory holds, failing on the first call the judge fails. Two judges ship:
`ScriptedJudge` (a function; tests and fixed policies) and `OpenAICompatibleJudge`, which asks any
OpenAI-compatible `/v1/chat/completions` endpoint for a JSON verdict. Nothing uses a judge unless a
verifier is built with one (`envs.rcm.verifier.rcm_v2_judged`); a judge that cannot answer fails the
check with the reason, so an outage never passes work unread.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from envs.chat_endpoint import ChatEndpointError, post_chat
from envs.contract import Trajectory
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult


class Judgement(BaseModel):
    """A judge's verdict on one piece of writing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: bool
    """Whether the writing meets the rubric."""
    reason: str
    """Why, in one or two sentences."""


class Judge(Protocol):
    """Reads writing against a rubric."""

    @property
    def name(self) -> str: ...

    def judge(self, rubric: str, text: str, context: Mapping[str, Any]) -> Judgement:
        """The verdict on `text` (the agent's writing) under `rubric`, given the case's `context`."""
        ...


@dataclass(frozen=True)
class Rubric:
    """What to judge in one tool's calls."""

    tool: str
    """The tool whose calls carry the writing."""
    field: str
    """The argument holding the text."""
    rubric: str
    """What good writing does, in words a reviewer would use."""


@dataclass(frozen=True)
class ScriptedJudge:
    """A judge that is a plain function (tests, fixed baselines)."""

    decide: Callable[[str, str, Mapping[str, Any]], Judgement]
    name: str = "scripted"

    def judge(self, rubric: str, text: str, context: Mapping[str, Any]) -> Judgement:
        return self.decide(rubric, text, context)


SYSTEM_PROMPT = (
    "You grade one piece of writing by a billing specialist against a rubric. Answer with a JSON object "
    'only: {"passed": true|false, "reason": "<one or two sentences>"}.'
)


@dataclass(frozen=True)
class OpenAICompatibleJudge:
    """A judge behind any OpenAI-compatible chat/completions endpoint (off unless configured)."""

    base_url: str
    """Endpoint root including `/v1`."""
    model: str
    """Model name as the server knows it."""
    api_key: str | None = None
    timeout_s: float = 60.0
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def judge(self, rubric: str, text: str, context: Mapping[str, Any]) -> Judgement:
        question = {"rubric": rubric, "case": dict(context), "writing": text}
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps(question, default=str)},
            ],
            "temperature": 0,
        }
        try:
            answer = post_chat(
                self.base_url, body, api_key=self.api_key, headers=self.headers, timeout_s=self.timeout_s
            )
            return Judgement.model_validate_json(answer["choices"][0]["message"]["content"])
        except (ChatEndpointError, KeyError, IndexError, TypeError, ValidationError) as exc:
            return Judgement(passed=False, reason=f"the judge at {self.base_url} gave no verdict: {exc}")


def judged_content(
    judge: Judge, rubrics: Iterable[Rubric], context: Callable[[Task], Mapping[str, Any]]
) -> Callable[[Task, Trajectory], Iterable[CheckResult]]:
    """A verifier rule: each rubric's writing in the trajectory, judged; `context` says what the
    judge may know about the case (never the task's gold)."""
    chosen = tuple(rubrics)

    def rule(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
        landed = [t for t in trajectory.turns if t.result.outcome in (ToolOutcome.OK, ToolOutcome.UNKNOWN)]
        for rubric in chosen:
            texts = [
                (t.call.call_id, str(t.call.arguments.get(rubric.field, "")))
                for t in landed
                if t.call.name == rubric.tool
            ]
            if not texts:
                continue
            failed = None
            for call_id, text in texts:
                verdict = judge.judge(rubric.rubric, text, context(task))
                if not verdict.passed:
                    failed = f"{rubric.tool} (call {call_id}): {verdict.reason}"
                    break
            yield CheckResult(
                name=f"content.judge.{rubric.tool}",
                kind="content",
                passed=failed is None,
                explanation=failed
                or f"{judge.name} finds the {rubric.field} of {rubric.tool} meets the rubric",
            )

    return rule
