"""The review decision as a form: what the reviewer chose, checked here and turned into a spec. Pure.

The form asks for the decision (approve, or reject the draft), whether the source episode handled
the case right (that answer is the reviewer's label of the episode, so expert agreement is measured
on reviewers), the reason, the acceptable resolutions (the reference specialist's, kept or judged
wrong, and the reviewer's own from the domain's moves with their amounts and codes:
`bridge.api.review_moves`), whether the case must end in a hand-off to a person, and which of the
domain's write tools must not be used (checkboxes; the suggestion marks none: what must not happen
is the reviewer's call, not the reference specialist's trajectory). The spec is the suggested one
with the reviewer's choices applied; where the reviewer's resolution replaces the reference's, its
calls are the gold. Raw JSON stays as an advanced view: when its box is ticked, the JSON is the
spec and the choices above it are not applied.

Every problem is reported at once, in words, and nothing is sent until there are none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import ValidationError

from adapters.drafting.store import Gold
from bridge.api import review_moves
from bridge.api.review_domain import ReviewDomain
from bridge.store.labels import LabelValue
from schemas.tasks import CallConstraint, VerifierSpec
from schemas.tools import ToolCall

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
    """The spec (and gold) whose gate preview the page showed."""
    reference: str = "keep"
    """`keep` the reference specialist's resolution as acceptable, or `replace` it (wrong)."""
    moves: frozenset[str] = frozenset()
    """The moves of the reviewer's own resolution."""
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The moves' fields (`<tool>.<argument>` → values)."""


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
        reference=_one(fields, "reference") or "keep",
        moves=review_moves.picked(fields),
        values=review_moves.values(fields),
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
    gold: Gold | None = None
    """The reviewer's gold, where their resolution replaces the reference's."""


@dataclass(frozen=True)
class Proposal:
    """A spec as the form states it, and the reviewer's gold where it replaces the reference's."""

    spec: VerifierSpec
    gold: Gold | None = None


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
    gold: tuple[ToolCall, ...] = ()
    """The reference specialist's calls (their reads start a reviewer's gold)."""
    domain: ReviewDomain | None = None
    """The domain's moves, for a resolution of the reviewer's own."""
    item_id: str = ""
    """The worked item the moves write to."""


def proposed(fields: Mapping[str, Sequence[str]], offer: Offer) -> Proposal:
    """The spec the form states (the JSON, or the suggestion with the choices applied), as the
    gate preview runs it; raises `FormProblems` listing every problem with it."""
    problems: list[str] = []
    made = _spec(fields, offer, problems)
    if problems or made is None:
        raise FormProblems(problems or ["there is no spec to preview"])
    return made


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
    made = _spec(fields, offer, problems) if action == "approve" else None
    if problems:
        raise FormProblems(problems)
    chosen: Literal["approve", "reject"] = "approve" if action == "approve" else "reject"
    label: LabelValue | None = "pass" if judgement == "pass" else "fail" if judgement == "fail" else None
    spec, gold = (made.spec, made.gold) if made is not None else (None, None)
    return Decision(chosen, label if judged else None, reason, spec, gold)


def _spec(fields: Mapping[str, Sequence[str]], offer: Offer, problems: list[str]) -> Proposal | None:
    if _one(fields, "use_json") == "on":
        spec = _from_json(_one(fields, "spec_json"), problems)
        return Proposal(spec) if spec is not None else None
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


def _from_choices(fields: Mapping[str, Sequence[str]], offer: Offer, problems: list[str]) -> Proposal | None:
    suggested, offered = offer.suggested, offer.offered
    escalate_tool, escalations = offer.escalate_tool, offer.escalations
    keep = _one(fields, "reference") != "replace"
    own = review_moves.mine(fields, offer.domain, offer.item_id, problems) if offer.domain else None
    reference = suggested.outcome.resolutions if suggested is not None and suggested.outcome else ()
    if not keep and own is None and not review_moves.picked(fields):
        problems.append(
            "the reference specialist's resolution is marked wrong: tick the moves of the right one"
        )
    if (own is not None or not keep) and suggested is not None and not reference:
        problems.append(
            "this suggestion states its resolution as checks every case must meet, not as one "
            "resolution among others: give the spec as JSON"
        )
    # Each acceptable resolution, by who states it, with the tools it uses.
    accepted = ([("the suggested resolution", offer.gold_tools)] if keep else []) + (
        [("your resolution", own.tools)] if own is not None else []
    )
    forbidden = [value.strip() for value in fields.get("forbid", ())]
    for tool in forbidden:
        if tool not in offered:
            problems.append(f"{tool!r} is not a tool this domain's form offers")
        for who, tools in accepted:
            if tool in tools:
                problems.append(f"{tool} is part of {who}: forbidding it fails the resolution you approve")
    escalation = _one(fields, "escalation")
    if escalation not in ESCALATION:
        problems.append("choose whether the case must be handed to a person")
    for who, tools in accepted:
        if escalation == "ruled_out" and escalate_tool in tools:
            problems.append(f"{who} hands the case to a person: a hand-off cannot be ruled out")
        elif escalation == "required" and escalate_tool not in tools:
            problems.append(f"{who} hands nothing to a person: a hand-off cannot be required")
    if suggested is None:
        problems.append("there is no suggested resolution yet: reject the draft, or give the spec as JSON")
        return None
    if problems:
        return None
    outcome = suggested.outcome
    if outcome is not None:
        kept = outcome.must
        if escalations and escalation != "ruled_out":
            # A hand-off the reviewer allows must not be ruled out by the outcome either.
            kept = tuple(a for a in kept if not (a.collection == escalations and a.max_count == 0))
        resolutions = (*(reference if keep else ()), *((own.resolution,) if own is not None else ()))
        outcome = outcome.model_copy(update={"must": kept, "resolutions": resolutions})
    spec = suggested.model_copy(
        update={
            "forbidden_calls": tuple(
                CallConstraint(tool=tool, reason=FORBIDDEN_REASON) for tool in dict.fromkeys(forbidden)
            ),
            "must_escalate": ESCALATION[escalation],
            "outcome": outcome,
        }
    )
    gold = own.gold(offer.gold, offered) if own is not None and not keep else None
    return Proposal(spec, gold)
