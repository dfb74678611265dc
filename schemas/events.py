"""Every Loopline event type, version 1 (design.md §3). Types are past-tense facts.

Episode events carry enough to rebuild the episode's world: `episode.started` has the work item and
(where the backend can give one) a world snapshot; `tool.called`/`tool.returned` carry full
arguments and results, so a replay backend can answer every call exactly as production did.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from schemas.base import PRINTABLE, Contract
from schemas.gate import GateCheck, SuiteEvidence, VerifierCardEvidence
from schemas.lora import AdapterMeta
from schemas.registry import DEFAULT_REGISTRY, EventData
from schemas.tasks import WorkItem
from schemas.tools import SideEffect, ToolCall, ToolError, ToolOutcome
from schemas.verdicts import Verdict

register = DEFAULT_REGISTRY.register

EpisodeStatus = Literal["completed", "escalated", "budget_exhausted", "failed", "aborted"]
"""How an episode ended, as `episode.ended` records it."""
EscalationTrigger = Literal["policy", "budget", "runtime", "rule"]
"""Who handed an episode to a human: the policy, an exhausted budget, a runtime error, or a rule."""


class PolicyRef(Contract):
    """Which policy acted: the served model and adapter."""

    model: str
    """Model name as served (OpenAI-compatible `model`)."""
    adapter_id: str | None = None
    """LoRA adapter id, if one was applied."""
    route: Literal["champion", "canary", "scripted", "human", "external"] = "champion"
    """How the episode was routed: `champion` and `canary` by the bridge's release router,
    `external` an outside agent's gateway episode (never evidence for either arm)."""


class SamplingParams(Contract):
    """Sampling settings of a model request, recorded so a turn can be reproduced."""

    temperature: float = 0.0
    """Sampling temperature."""
    top_p: float = 1.0
    """Nucleus sampling mass."""
    max_tokens: int | None = None
    """Completion token limit."""
    seed: int | None = None
    """Sampling seed, when the server honours one."""


@register("loopline.episode.started.v2")
class EpisodeStarted(EventData):
    """An episode began for a work item.

    v2 adds policy route `external` (an outside agent's gateway episode); v1 data reads unchanged
    as v2.
    """

    work_item: WorkItem
    """The work item as the agent saw it."""
    policy: PolicyRef
    """The policy that works the item."""
    tools: tuple[str, ...]
    """Tools offered to the agent."""
    tools_hash: str
    """Content hash of the tool specs offered (names, schemas, descriptions)."""
    system_prompt_hash: str
    """Hash of the system prompt; with the events it makes the prompt reproducible."""
    world_snapshot: dict[str, Any] | None = None
    """Initial world state, when the backend can give one (sim, sandbox)."""
    task_id: str | None = None
    """Environment task, when the episode is an evaluation or training rollout."""
    max_steps: int
    """Step budget."""
    max_seconds: float
    """Wall-time budget."""


@register("loopline.model.responded.v1")
class ModelResponded(EventData):
    """The policy answered one turn."""

    turn: int = Field(ge=0)
    """Turn number within the episode."""
    content: str | None = None
    """Text content of the reply."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Valid tool calls the reply asked for."""
    finish_reason: str | None = None
    """Server-reported finish reason."""
    invalid_reason: str | None = None
    """Why the reply could not be used (not a tool call, bad JSON), if so."""
    raw: str | None = None
    """The raw reply, kept when it was invalid."""
    sampling: SamplingParams = Field(default_factory=SamplingParams)
    """Sampling settings of the request."""
    prompt_tokens: int | None = None
    """Tokens in the prompt, as reported."""
    completion_tokens: int | None = None
    """Tokens in the completion, as reported."""
    latency_ms: float = 0.0
    """Request latency."""


@register("loopline.tool.called.v1")
class ToolCalled(EventData):
    """The agent called a tool (recorded before the call runs)."""

    call: ToolCall
    """The call, with its raw arguments."""
    side_effect: SideEffect | None = None
    """The tool's side-effect class; None for an unknown tool."""


@register("loopline.tool.returned.v1")
class ToolReturned(EventData):
    """A tool call returned a result."""

    call_id: str = Field(min_length=1, max_length=128)
    """The call this answers."""
    name: str = Field(min_length=1, max_length=128)
    """Tool name."""
    result: dict[str, Any]
    """The result model as JSON."""
    latency_ms: float = 0.0
    """Call latency."""
    outcome: Literal[ToolOutcome.OK] = ToolOutcome.OK
    """Always ok."""


@register("loopline.tool.failed.v1")
class ToolFailed(EventData):
    """A tool call failed, or its effect is unknown."""

    call_id: str = Field(min_length=1, max_length=128)
    """The call this answers."""
    name: str = Field(min_length=1, max_length=128)
    """Tool name."""
    error: ToolError
    """What went wrong, typed by where."""
    outcome: Literal[ToolOutcome.FAILED, ToolOutcome.UNKNOWN] = ToolOutcome.FAILED
    """failed, or unknown when a write may have happened."""
    attempts: int = Field(default=1, ge=1)
    """Attempts made, retries included."""
    latency_ms: float = 0.0
    """Total latency over the attempts."""


@register("loopline.escalated.v1")
class Escalated(EventData):
    """The episode was handed to a human."""

    reason: str
    """Why."""
    trigger: EscalationTrigger
    """Who decided: the policy, an exhausted budget, a runtime error, or a rule."""
    recommendation: str | None = None
    """What the agent recommends the human do."""
    queue: str | None = None
    """Human work queue, e.g. `supervisor` or `credentialing`."""


@register("loopline.human.intervened.v1")
class HumanIntervened(EventData):
    """A human acted on the episode (approved, overrode, took over, annotated)."""

    actor: str
    """Who (a pseudonymous user id)."""
    role: str
    """Their role, e.g. `supervisor`."""
    action: Literal["approve", "reject", "override", "takeover", "annotate"]
    """What they did."""
    note: str = ""
    """Their words."""
    payload: dict[str, Any] = Field(default_factory=dict)
    """What they changed, e.g. the overriding tool call."""


@register("loopline.episode.ended.v1")
class EpisodeEnded(EventData):
    """The episode finished."""

    status: EpisodeStatus
    """How it ended."""
    steps: int = Field(ge=0)
    """Model turns taken."""
    tool_calls: int = Field(ge=0)
    """Tool calls made."""
    duration_ms: float = Field(ge=0)
    """Wall time."""
    final_message: str | None = None
    """The agent's closing message."""
    world_hash: str | None = None
    """Hash of the final world state, when the backend can give one."""


@register("loopline.episode.interrupted.v1")
class EpisodeInterrupted(EventData):
    """The episode was cut off (a crash, a kill, a shutdown past its drain deadline) and closed by
    the bridge that owns its record, at its next start or while draining: it ends the episode as
    `episode.ended` would, naming what was in flight."""

    reason: str = Field(min_length=1, max_length=2000)
    """Why it was closed this way (e.g. found open at start-up after a crash)."""
    last_seq: int = Field(ge=0)
    """The seq of the last event recorded before the interruption."""
    last_event_type: str
    """The type of that event."""
    last_call_id: str | None = None
    """The last tool call recorded (`tool.called`), if there was one."""
    last_tool: str | None = None
    """Its tool."""
    last_side_effect: SideEffect | None = None
    """Its side-effect class, as recorded."""
    effect_unknown: bool = False
    """True when that call has no recorded result and may have changed the live system (a write,
    or a tool of unknown side effect): a human must check what happened."""


@register("loopline.outcome.observed.v1")
class OutcomeObserved(EventData):
    """A later business fact about the episode's work item (paid, denied again, appeal won)."""

    kind: str
    """Domain outcome, e.g. `paid`, `denied`, `appeal_won`, `covenant_breach`."""
    item_id: str = Field(min_length=1, max_length=256, pattern=PRINTABLE)
    """The work item it is about (the event's subject)."""
    observed_at: datetime
    """When the business system recorded it."""
    amount: Decimal | None = None
    """Money involved, if any."""
    reason_codes: tuple[str, ...] = ()
    """Codes given with it (e.g. CARCs of a new denial)."""
    external_ref: str | None = None
    """The business system's reference."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Anything else."""


@register("loopline.verifier.scored.v2")
class VerifierScored(EventData):
    """A verifier scored a trajectory.

    v2 adds check kind `content` (what the agent wrote); v1 data reads unchanged as v2.
    """

    task_id: str | None
    """The task, when scored against one."""
    verdict: Verdict
    """The verdict with every check."""


DEFAULT_REGISTRY.register_upcaster(
    "loopline.verifier.scored.v1", "loopline.verifier.scored.v2", lambda data: data
)
DEFAULT_REGISTRY.register_upcaster(
    "loopline.episode.started.v1", "loopline.episode.started.v2", lambda data: data
)


@register("loopline.edge_case.detected.v1")
class EdgeCaseDetected(EventData):
    """A rule found a production edge case worth turning into a task."""

    fingerprint: str
    """Stable hash of what makes the case distinct; duplicates share it."""
    rule: str
    """Rule name, e.g. `tool_failure.http_5xx`."""
    severity: Literal["low", "medium", "high"]
    """How much it matters."""
    summary: str
    """One line for a reviewer."""
    source_episode_id: str
    """Episode it was seen in."""
    event_ids: tuple[str, ...] = ()
    """Events that are the evidence."""
    evidence: dict[str, Any] = Field(default_factory=dict)
    """Structured evidence."""


@register("loopline.task.promoted.v1")
class TaskPromoted(EventData):
    """A validated task joined a task set."""

    task_id: str
    """The task."""
    task_set: str
    """Task-set name."""
    task_set_version: int
    """The new version that contains it."""
    content_hash: str
    """The task's content hash."""
    source_episode_id: str | None = None
    """Production episode it came from."""
    reviewer: str | None = None
    """Expert who reviewed it."""


@register("loopline.adapter.trained.v1")
class AdapterTrained(EventData):
    """A LoRA adapter finished training."""

    adapter: AdapterMeta
    """The adapter."""


@register("loopline.adapter.evaluated.v1")
class AdapterEvaluated(EventData):
    """The gate judged an adapter against the champion: the verdict and its evidence."""

    adapter_id: str
    """The adapter judged."""
    champion: str
    """The policy it was paired against (`base:<model>` or an adapter id)."""
    passed: bool
    """True when every rule held: the adapter may ship."""
    reasons: tuple[str, ...] = ()
    """The reason of every failed rule (empty when it passed)."""
    checks: tuple[GateCheck, ...] = ()
    """Every rule applied, with the numbers it read."""
    suites: tuple[SuiteEvidence, ...] = ()
    """The paired evaluation, per suite."""
    verifier_cards: tuple[VerifierCardEvidence, ...] = ()
    """The verifier card of every verifier that scored the evaluation, as the gate read it."""


@register("loopline.adapter.registered.v1")
class AdapterRegistered(EventData):
    """An adapter entered the release registry as a candidate, after the gate."""

    adapter_id: str
    """Registry id of the adapter."""
    served_name: str
    """The versioned name it is served under (never reused for another adapter)."""
    base_model: str
    """The base model it applies to."""
    artifact_uri: str
    """Where its files are."""
    fingerprint: str
    """SHA-256 of its defining files, as the policy server computes it."""
    parent_adapter_id: str | None = None
    """The champion it was trained from, if any."""
    gate_passed: bool
    """What the gate decided."""
    forced: bool = False
    """True when an operator registered it although the gate stopped it."""
    gate_reasons: tuple[str, ...] = ()
    """The gate's reasons for stopping it (kept when it was forced through)."""


@register("loopline.adapter.promoted.v1")
class AdapterPromoted(EventData):
    """A canary adapter became the champion: it serves every episode not routed to a canary."""

    adapter_id: str
    """The new champion."""
    previous_champion_id: str | None
    """The champion it replaces (None = the base model), now retired."""
    decided_by: Literal["sequential_test", "operator"]
    """The canary's sequential test, or an operator (`loopline adapters promote`)."""
    reason: str
    """Why, in one sentence with the numbers."""
    evidence: dict[str, float] = Field(default_factory=dict)
    """The numbers the decision read: episodes and passes per arm, the test statistic, its bounds."""


@register("loopline.adapter.deployed.v1")
class AdapterDeployed(EventData):
    """An adapter started serving a share of live traffic."""

    adapter_id: str
    """The adapter."""
    stage: Literal["canary", "champion"]
    """Canary share or full champion."""
    traffic_share: float = Field(ge=0.0, le=1.0)
    """Share of live episodes routed to it."""


@register("loopline.adapter.rolled_back.v1")
class AdapterRolledBack(EventData):
    """An adapter was withdrawn because it did worse."""

    adapter_id: str
    """The withdrawn adapter."""
    restored_adapter_id: str | None
    """The adapter serving again (None = base model)."""
    reason: str
    """Why."""
    metrics: dict[str, float] = Field(default_factory=dict)
    """The numbers that triggered it."""
