"""The review decision as a form: what the reviewer chose, checked here and turned into a spec. Pure.

The form asks for the decision (approve the suggested resolution, or reject the draft), whether
the source episode handled the case right (that answer is the reviewer's label of the episode, so
expert agreement is measured on reviewers), the reason, whether the case must end in a hand-off to
a person, and which of the domain's write tools must not be used (checkboxes; the suggestion marks
none: what must not happen is the reviewer's call, not the reference specialist's trajectory). The
spec is the suggested one with the reviewer's choices applied. Raw JSON stays as an advanced view:
when its box is ticked, the JSON is the spec and the choices above it are not applied.

Every problem is reported at once, in words, and nothing is sent until there are none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from bridge.store.labels import LabelValue
from schemas.tasks import CallConstraint, VerifierSpec

MAX_REASON = 4000
FORBIDDEN_REASON = "the reviewer marked it: a specialist must not use it on this case"
ESCALATION = {"required": True, "ruled_out": False, "either": None}
"""The hand-off choice → `VerifierSpec.must_escalate`."""


@dataclass(frozen=True)
class Choices:
    """What the form shows filled in: the defaults for a spec, or what the reviewer sent."""

    forbidden: frozenset[str]
    escalation: str
    spec_json: str
    decision: str = ""
    judgement: str = ""
    reason: str = ""
    use_json: bool = False
    action: str = ""
    """The button pressed: `preview` (the gates only) or `send`."""
    previewed: str = ""
    """The hash of the spec whose gate preview the page showed."""


def choices(spec: VerifierSpec | None) -> Choices:
    """The form's defaults for a spec (the suggestion, or the spec under review)."""
    if spec is None:
        return Choices(frozenset(), "either", "")
    escalation = next(k for k, v in ESCALATION.items() if v == spec.must_escalate)
    text = json.dumps(spec.model_dump(mode="json"), indent=2, sort_keys=True)
    return Choices(frozenset(c.tool for c in spec.forbidden_calls), escalation, text)


def sent(fields: Mapping[str, Sequence[str]]) -> Choices:
    """What a submitted form said, to show it again with its problems."""
    return Choices(
        forbidden=frozenset(v.strip() for v in fields.get("forbid", ())),
        escalation=_one(fields, "escalation"),
        spec_json=(fields.get("spec_json") or [""])[0],
        decision=_one(fields, "decision"),
        judgement=_one(fields, "judgement"),
        reason=(fields.get("reason") or [""])[0],
        use_json=_one(fields, "use_json") == "on",
        action=_one(fields, "action"),
        previewed=_one(fields, "previewed"),
    )


@dataclass(frozen=True)
class Decision:
    """A decision that passed every check."""

    action: Literal["approve", "reject"]
    judgement: LabelValue | None
    """The reviewer's label of the source episode (None where no label store is kept)."""
    reason: str
    spec: VerifierSpec | None
    """The spec to validate and publish with (approvals)."""


class FormProblems(ValueError):
    """Everything wrong with a submitted form, each in one line."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


def _one(fields: Mapping[str, Sequence[str]], name: str) -> str:
    values = fields.get(name) or [""]
    return values[0].strip()


@dataclass(frozen=True)
class Offer:
    """What the form offers on one draft."""

    suggested: VerifierSpec | None
    """The suggested spec the choices are applied to."""
    gold_tools: frozenset[str] = frozenset()
    """The tools the reference specialist's resolution uses (forbidding one would make the
    suggested resolution fail its own gate)."""
    offered: Sequence[str] = ()
    """The tools the form offers to forbid."""
    escalate_tool: str = ""
    """The domain's hand-off tool."""
    escalations: str = ""
    """The world collection hand-offs are recorded in."""


def proposed(fields: Mapping[str, Sequence[str]], offer: Offer) -> VerifierSpec:
    """The spec the form states (the JSON, or the suggestion with the choices applied), as the
    gate preview runs it; raises `FormProblems` listing every problem with it."""
    problems: list[str] = []
    spec = _spec(fields, offer, problems)
    if problems or spec is None:
        raise FormProblems(problems or ["there is no spec to preview"])
    return spec


def decide(fields: Mapping[str, Sequence[str]], offer: Offer, *, judged: bool = True) -> Decision:
    """The decision a submitted form states; raises `FormProblems` listing every problem.

    Without `judged` (no label store here) the form asks no judgement of the episode."""
    problems: list[str] = []
    action = _one(fields, "decision")
    if action not in ("approve", "reject"):
        problems.append("choose a decision: approve the resolution, or reject the draft")
    judgement = _one(fields, "judgement")
    if judged and judgement not in ("pass", "fail"):
        problems.append("say whether the episode handled the case right (yes or no)")
    reason = _one(fields, "reason")
    if not reason:
        problems.append("give a reason another billing specialist can check")
    elif len(reason) > MAX_REASON:
        problems.append(f"the reason is longer than {MAX_REASON} characters")
    spec = _spec(fields, offer, problems) if action == "approve" else None
    if problems:
        raise FormProblems(problems)
    chosen: Literal["approve", "reject"] = "approve" if action == "approve" else "reject"
    label: LabelValue | None = "pass" if judgement == "pass" else "fail" if judgement == "fail" else None
    return Decision(chosen, label if judged else None, reason, spec)


def _spec(fields: Mapping[str, Sequence[str]], offer: Offer, problems: list[str]) -> VerifierSpec | None:
    if _one(fields, "use_json") == "on":
        return _from_json(_one(fields, "spec_json"), problems)
    return _from_choices(fields, offer, problems)


def _from_json(text: str, problems: list[str]) -> VerifierSpec | None:
    try:
        return VerifierSpec.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        problems.append(f"the spec JSON does not parse: {exc.msg} at line {exc.lineno}")
    except ValidationError as exc:
        for error in exc.errors()[:5]:
            where = ".".join(str(p) for p in error["loc"]) or "spec"
            problems.append(f"spec JSON, {where}: {error['msg']}")
    return None


def _from_choices(
    fields: Mapping[str, Sequence[str]], offer: Offer, problems: list[str]
) -> VerifierSpec | None:
    suggested, gold_tools, offered = offer.suggested, offer.gold_tools, offer.offered
    escalate_tool, escalations = offer.escalate_tool, offer.escalations
    forbidden = [value.strip() for value in fields.get("forbid", ())]
    for tool in forbidden:
        if tool not in offered:
            problems.append(f"{tool!r} is not a tool this domain's form offers")
        elif tool in gold_tools:
            problems.append(
                f"{tool} is part of the suggested resolution: forbidding it fails the resolution you approve"
            )
    escalation = _one(fields, "escalation")
    if escalation not in ESCALATION:
        problems.append("choose whether the case must be handed to a person")
    elif escalation == "ruled_out" and escalate_tool in gold_tools:
        problems.append("the suggested resolution hands the case to a person: a hand-off cannot be ruled out")
    elif escalation == "required" and escalate_tool not in gold_tools:
        problems.append("the suggested resolution hands nothing to a person: a hand-off cannot be required")
    if suggested is None:
        problems.append("there is no suggested resolution yet: reject the draft, or give the spec as JSON")
        return None
    if problems:
        return None
    outcome = suggested.outcome
    if outcome is not None and escalations and escalation != "ruled_out":
        # A hand-off the reviewer allows must not be ruled out by the outcome either.
        kept = tuple(a for a in outcome.must if not (a.collection == escalations and a.max_count == 0))
        outcome = outcome.model_copy(update={"must": kept})
    return suggested.model_copy(
        update={
            "forbidden_calls": tuple(
                CallConstraint(tool=tool, reason=FORBIDDEN_REASON) for tool in dict.fromkeys(forbidden)
            ),
            "must_escalate": ESCALATION[escalation],
            "outcome": outcome,
        }
    )
