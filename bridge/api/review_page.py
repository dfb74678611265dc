"""The review page's HTML: Jinja2 templates (`bridge/api/templates/review/`) that escape every
value by default, plain forms, no scripts. Pure: each function renders one page from its data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from adapters.drafting.store import GatePreview
from bridge.api.review_case import Moment, Table, case_facts, moment, spec_checks
from bridge.api.review_console import Console
from bridge.api.review_domain import Codes, ReviewDomain
from bridge.api.review_form import Choices
from bridge.api.review_models import DraftCase, DraftSummary, Duplicate

_ENV = Environment(
    loader=PackageLoader("bridge.api", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
ESCALATION_CHOICES = (
    ("either", "either: handing it over is one acceptable way to end"),
    ("required", "required: only a person can decide this case"),
    ("ruled_out", "ruled out: the case must be worked, not handed over"),
)


@dataclass(frozen=True)
class Viewer:
    """Who is looking, and the CSRF token their forms carry."""

    name: str
    csrf: str


def render(name: str, **context: Any) -> str:
    """One template, rendered (every value escaped unless a template marks it safe)."""
    return _ENV.get_template(f"review/{name}").render(**context)


def login(note: str = "") -> str:
    """The sign-in form (a reviewer's bearer token), with why the last attempt failed."""
    return render("login.html", title="Loopline review: sign in", note=note, reviewer="", csrf="")


def refused(reason: str, viewer: Viewer | None = None) -> str:
    """A refused request, in words."""
    return render(
        "refused.html",
        title="Loopline review: refused",
        reason=reason,
        reviewer=viewer.name if viewer else "",
        csrf=viewer.csrf if viewer else "",
    )


def queue(rows: Sequence[DraftSummary], *, every: bool, viewer: Viewer) -> str:
    """Drafts waiting for review (or all of them)."""
    return render(
        "queue.html",
        title="Loopline review: task drafts",
        rows=rows,
        every=every,
        reviewer=viewer.name,
        csrf=viewer.csrf,
    )


def console(view: Console, *, viewer: Viewer, can_review: bool) -> str:
    """Every draft and its state with a count per stage, the reviewers' labels and agreement,
    reminders and escalations, and the PHI access log (operators and reviewers)."""
    return render(
        "console.html",
        title="Loopline console: review and promotion",
        rows=view.drafts,
        view=view,
        stages=view.stages,
        can_review=can_review,
        reviewer=viewer.name,
        csrf=viewer.csrf,
    )


def timeline(case: DraftCase, codes: Codes) -> list[Moment]:
    """The source episode's events, one plain line each."""
    return [
        moment(e.seq, e.time.strftime("%Y-%m-%d %H:%M:%S"), e.type, e.structured.get("data") or {}, codes)
        for e in case.timeline
    ]


def calls(case: DraftCase) -> Table:
    """The draft's replayed calls with what each answered (the error in words when one failed)."""
    table = Table(("#", "call", "answer"))
    for i, recorded in enumerate(case.draft.recorded):
        args = ", ".join(f"{k}={v}" for k, v in sorted(recorded.call.arguments.items()))
        if recorded.error is not None:
            error = recorded.error
            status = f" (HTTP {error.status_code})" if error.status_code else ""
            answer = f"{recorded.outcome.value}: {error.kind}{status}: {error.message}"
        else:
            keys = ", ".join(sorted(recorded.result or {}))
            answer = f"{recorded.outcome.value}" + (f" ({keys})" if keys else "")
        table.rows.append((str(i), f"{recorded.call.name}({args})", answer))
    return table


def draft(
    case: DraftCase,
    *,
    viewer: Viewer,
    choices: Choices,
    domain: ReviewDomain,
    judged: bool = True,
    duplicates: Sequence[Duplicate] = (),
    message: str = "",
    problems: Sequence[str] = (),
    preview: GatePreview | None = None,
    revealed: tuple[str, str] | None = None,
) -> str:
    """One draft as a billing specialist reads it, and the decision form while it waits, with
    what the gates say about the form's spec (`preview`) and a document's real text where the
    reviewer asked for it (`revealed`: document id, text)."""
    moments = timeline(case, domain.codes)
    suggestion = case.suggestion
    return render(
        "draft.html",
        title=f"Draft {case.draft.draft_id}: claim {case.draft.work_item.item_id}",
        d=case.draft,
        s=case.status,
        facts=case_facts(case.draft.world, moments, domain.codes),
        timeline=moments,
        calls=calls(case),
        report=case.report,
        suggestion=suggestion,
        note=case.note,
        duplicates=duplicates,
        can_decide=case.status.stage in ("awaiting_review", "returned"),
        choices=choices,
        judged=judged,
        checks=spec_checks(case.spec or case.suggested_spec),
        offered=domain.writes,
        gold_tools=frozenset(c.name for c in suggestion.gold) if suggestion else frozenset(),
        escalation_choices=ESCALATION_CHOICES,
        world_json=json.dumps(case.draft.world, indent=2, sort_keys=True, default=str),
        message=message,
        problems=problems,
        preview=preview,
        revealed=revealed,
        reveals=case.reveals,
        moves=domain.moves,
        case_values=domain.case_values(case.draft.world, case.draft.work_item.item_id),
        reviewer=viewer.name,
        csrf=viewer.csrf,
    )
