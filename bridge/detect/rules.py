"""The edge-case rules: small named functions from an event (and its context) to findings. Pure.

Every fingerprint is built only from the event itself (and config), except the outcome rule's,
which also uses the episode's final state; an outcome arrives long after its episode is projected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from bridge.detect.context import Rejected, RuleContext
from bridge.detect.findings import Finding, Severity
from bridge.detect.vocabulary import unknown_values
from schemas.envelope import Event
from schemas.events import (
    EpisodeInterrupted,
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    ToolFailed,
    ToolReturned,
)
from schemas.tools import ToolOutcome

Rule = Callable[[Event, RuleContext], Iterable[Finding]]
_TENANT = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _finding(
    event: Event, rule: str, severity: Severity, summary: str, features: dict[str, Any], **evidence: Any
) -> Finding:
    return Finding(rule, severity, summary, event.tenant, event.episodeid, features, evidence, (event.id,))


def tool_http_5xx(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The live system answered a tool call with a server error."""
    data = event.data
    if isinstance(data, ToolFailed) and data.error.kind == "http" and (data.error.status_code or 0) >= 500:
        status = data.error.status_code
        yield _finding(
            event,
            "tool_failure.http_5xx",
            "medium",
            f"{data.name} answered HTTP {status}",
            {"tool": data.name, "status_code": status},
            message=data.error.message,
            attempts=data.attempts,
        )


def live_system_rejected_valid_call(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The live system refused as malformed (400/422) a call that passed the tool's own schema.

    That is drift between the tool definition the agent was trained on and the production API; a
    404 or 409 is a business answer (unknown id, refused action) and not a case of its own.
    """
    data = event.data
    if isinstance(data, ToolFailed) and data.error.kind == "http" and data.error.status_code in (400, 422):
        status = data.error.status_code
        yield _finding(
            event,
            "tool_failure.live_rejected",
            "medium",
            f"the live system rejected a schema-valid {data.name} call with HTTP {status}",
            {"tool": data.name, "status_code": status},
            message=data.error.message,
        )


def live_answer_unreadable(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The live system answered, but its answer could not be read or relied on (a document whose
    figures may be wrong, a response that does not parse): production data no training task has."""
    data = event.data
    if isinstance(data, ToolFailed) and data.error.kind == "backend":
        where = str(data.error.details.get("location", "")) or None
        yield _finding(
            event,
            "tool_failure.unreadable_answer",
            "medium",
            f"{data.name}: the live system's answer could not be relied on",
            {"tool": data.name},
            message=data.error.message,
            location=where,
        )


def tool_timeout_or_unknown(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """A call timed out, or its effect is unknown (a write that may or may not have happened)."""
    data = event.data
    if not isinstance(data, ToolFailed):
        return
    if data.outcome == ToolOutcome.UNKNOWN:
        yield _finding(
            event,
            "tool_failure.unknown_outcome",
            "high",
            f"{data.name}: effect unknown after {data.error.kind}",
            {"tool": data.name, "kind": data.error.kind},
            message=data.error.message,
        )
    elif data.error.kind == "timeout":
        yield _finding(
            event,
            "tool_failure.timeout",
            "medium",
            f"{data.name} timed out",
            {"tool": data.name},
            latency_ms=data.latency_ms,
            attempts=data.attempts,
        )


def agent_validation_error(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The agent called a tool with arguments its schema refuses, or a tool that does not exist."""
    data = event.data
    if isinstance(data, ToolFailed) and data.error.kind in ("validation", "unknown_tool"):
        fields = sorted(str(key) for key in data.error.details)[:20]
        yield _finding(
            event,
            "tool_failure.agent_validation",
            "low",
            f"agent sent invalid {data.name} call ({data.error.kind})",
            {"tool": data.name, "kind": data.error.kind, "fields": fields},
            message=data.error.message,
        )


def invalid_model_reply(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The policy's reply could not be used (not a tool call, broken JSON arguments)."""
    data = event.data
    if isinstance(data, ModelResponded) and data.invalid_reason:
        # Digits and quoted fragments vary per reply; the shape of the reason is the case.
        shape = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "#", data.invalid_reason.lower())[:120]
        yield _finding(
            event,
            "schema_violation.model_reply",
            "low",
            f"unusable model reply: {data.invalid_reason[:120]}",
            {"reason": shape},
            finish_reason=data.finish_reason,
            raw=(data.raw or "")[:2000],
        )


def escalation(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The episode was handed to a human."""
    data = event.data
    if isinstance(data, Escalated):
        severity: Severity = "low" if data.trigger in ("policy", "rule") else "medium"
        yield _finding(
            event,
            "escalation",
            severity,
            f"escalated ({data.trigger}) to {data.queue or 'a human'}: {data.reason[:200]}",
            {"trigger": data.trigger, "queue": data.queue},
            reason=data.reason,
            recommendation=data.recommendation,
        )


def episode_interrupted(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """The episode was cut off (a crash, a kill, a shutdown past its deadline); high when a call
    in flight may have changed the live system without a recorded result. Every such uncertain
    write is its own case (the episode is one of its features: each needs a human to check what
    happened in the live system), reported once per episode; interruptions with nothing in flight
    are one case per tenant."""
    data = event.data
    if isinstance(data, EpisodeInterrupted):
        severity: Severity = "high" if data.effect_unknown else "medium"
        in_flight = f"; {data.last_tool} in flight, effect unknown" if data.effect_unknown else ""
        features: dict[str, Any] = {"effect_unknown": data.effect_unknown, "tool": None}
        if data.effect_unknown:
            features |= {"tool": data.last_tool, "episode": event.episodeid}
        yield _finding(
            event,
            "episode_interrupted",
            severity,
            f"episode interrupted after {data.last_event_type}{in_flight}",
            features,
            reason=data.reason,
            last_call_id=data.last_call_id,
        )


def human_override(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """A human overruled or took over from the agent."""
    data = event.data
    if isinstance(data, HumanIntervened) and data.action in ctx.config.override_actions:
        tool = data.payload.get("tool") or data.payload.get("name")
        tool = tool if isinstance(tool, str) else None
        yield _finding(
            event,
            "human_override",
            "high",
            f"{data.role} chose {data.action}" + (f" with {tool}" if tool else ""),
            {"action": data.action, "role": data.role, "tool": tool},
            note=data.note[:2000],
            payload=data.payload,
        )


def unknown_vocabulary(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """A code (CARC, group code, RARC...) that no training task contains."""
    data = event.data
    if isinstance(data, EpisodeStarted):
        doc: Any = data.work_item.payload
    elif isinstance(data, ToolReturned):
        doc = data.result
    elif isinstance(data, OutcomeObserved):
        doc = {"details": data.details, "reason_codes": list(data.reason_codes)}
    else:
        return
    seen: set[tuple[str, str]] = set()
    for name, value, path in unknown_values(doc, ctx.config.known_vocabulary):
        if (name, value) not in seen:
            seen.add((name, value))
            yield _finding(
                event,
                "unknown_vocabulary",
                "medium",
                f"{name} {value!r} never seen in training",
                {"field": name, "value": value[:128]},
                path=path,
            )


def outcome_contradiction(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """A later adverse outcome for an episode that claimed the item resolved."""
    data, episode = event.data, ctx.episode
    if (
        not isinstance(data, OutcomeObserved)
        or episode is None
        or data.kind not in ctx.config.adverse_outcomes
    ):
        return
    claimed = episode.status in ctx.config.resolved_statuses or bool(episode.ok_writes)
    if claimed:
        last_write = episode.ok_writes[-1] if episode.ok_writes else None
        yield _finding(
            event,
            "outcome_contradiction",
            "high",
            f"{data.kind} after the episode {episode.status}" + (f" and {last_write}" if last_write else ""),
            {
                "kind": data.kind,
                "reason_codes": sorted(data.reason_codes),
                "status": episode.status,
                "last_write": last_write,
            },
            item_id=data.item_id,
            ok_writes=list(episode.ok_writes),
            external_ref=data.external_ref,
        )


def unusual_latency(event: Event, ctx: RuleContext) -> Iterator[Finding]:
    """A tool call far slower than the threshold, or than its tool's recent percentile."""
    data = event.data
    if not isinstance(data, ToolReturned | ToolFailed):
        return
    latency, baseline, cfg = data.latency_ms, ctx.latency_baseline_ms, ctx.config
    if latency > cfg.latency_threshold_ms:
        basis, limit = "threshold", cfg.latency_threshold_ms
    elif baseline is not None and latency > baseline * cfg.latency_factor:
        basis, limit = "percentile", baseline * cfg.latency_factor
    else:
        return
    yield _finding(
        event,
        "unusual_latency",
        "low",
        f"{data.name} took {latency:.0f} ms (limit {limit:.0f} ms, {basis})",
        {"tool": data.name, "basis": basis},
        latency_ms=latency,
        limit_ms=limit,
    )


EVENT_RULES: tuple[Rule, ...] = (
    tool_http_5xx,
    live_system_rejected_valid_call,
    live_answer_unreadable,
    tool_timeout_or_unknown,
    agent_validation_error,
    invalid_model_reply,
    escalation,
    episode_interrupted,
    human_override,
    unknown_vocabulary,
    outcome_contradiction,
    unusual_latency,
)
"""Every rule over events, in the order they run."""


def dead_letter(rejected: Rejected) -> Finding:
    """A message that failed to decode or validate: a schema violation on the wire."""
    tenant = rejected.tenant if rejected.tenant and _TENANT.match(rejected.tenant) else "unknown"
    event_type, source = (rejected.event_type or "")[:128] or None, (rejected.source or "")[:256] or None
    return Finding(
        "schema_violation.dead_letter",
        "medium",
        f"dead-lettered ({rejected.reason_code}): {rejected.reason[:200]}",
        tenant,
        (rejected.episode_id or "")[:128] or f"dlq:{rejected.topic}",
        {"reason_code": rejected.reason_code, "type": event_type, "source": source},
        {"reason": rejected.reason[:2000], "topic": rejected.topic},
        (rejected.event_id[:64],) if rejected.event_id else (),
    )
