"""The review page's HTML: plain server-rendered markup and forms, escaped, no scripts. Pure."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

if TYPE_CHECKING:
    from bridge.api.review import DraftCase, DraftSummary

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}td,th{border-bottom:1px solid #ddd;
padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f4f5f7}code,pre,textarea{font:13px
ui-monospace,monospace}pre{background:#f6f8fa;padding:.6rem;overflow:auto;max-height:24rem}
textarea{width:100%;height:18rem}.ok{color:#0a7d32}.bad{color:#b3261e}.stage{font-weight:600}
form{border:1px solid #ddd;padding:1rem;margin:1rem 0}label{display:block;margin:.4rem 0}
.message{background:#fff7d6;padding:.6rem;border:1px solid #e8d48a}
"""


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>"
    )


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], table_id: str = "") -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    ident = f' id="{escape(table_id)}"' if table_id else ""
    return f"<table{ident}><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def _json(value: Any) -> str:
    return f"<pre>{escape(json.dumps(value, indent=2, sort_keys=True, default=str))}</pre>"


def first_error(exc: Exception) -> str:
    """A form error in one line."""
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        return f"{'.'.join(str(p) for p in error['loc']) or 'value'}: {error['msg']}"
    return str(exc)


def login(failed: bool) -> str:
    """The sign-in form (a reviewer's bearer token)."""
    note = '<p class="bad">That token is not a reviewer\'s.</p>' if failed else ""
    return _page(
        "Loopline review: sign in",
        f'{note}<form method="post" action="/review/login"><label>Reviewer token '
        '<input type="password" name="token" id="token" autocomplete="off"></label>'
        '<button type="submit" id="sign-in">Sign in</button></form>',
    )


def queue(rows: Sequence[DraftSummary], *, every: bool) -> str:
    """Drafts waiting for review (or all of them)."""
    body = [
        "<p>Production edge cases reconstructed as task drafts. Open one to see the episode, the draft, "
        "its fidelity and validation, then approve it with an outcome spec or reject it.</p>",
        f'<p><a href="/review{"" if every else "?all=true"}">{"waiting only" if every else "every draft"}</a></p>',
    ]
    if not rows:
        body.append('<p id="empty">No drafts are waiting for review.</p>')
    cells = [
        (
            f'<a href="/review/drafts/{escape(r.status.draft_id)}">{escape(r.status.draft_id)}</a>',
            escape(r.item_id or ""),
            escape(r.rule or ""),
            "" if r.fidelity is None else f"{r.fidelity:.2f}",
            f'<span class="stage">{escape(r.status.stage)}</span>',
            str(r.status.round),
            escape(r.status.updated_at.isoformat(timespec="seconds")),
        )
        for r in rows
    ]
    body.append(_table(("draft", "claim", "rule", "fidelity", "stage", "round", "updated"), cells, "drafts"))
    return _page("Loopline review: task drafts", "".join(body))


def draft(case: DraftCase, *, message: str = "") -> str:
    """One draft: status, fidelity, validation, the episode, the draft, and the decision forms."""
    d, s = case.draft, case.status
    parts = [f'<p class="message" id="message">{escape(message)}</p>' if message else ""]
    parts.append(
        f'<p><a href="/review">← queue</a></p><p>Stage: <span class="stage" id="stage">{escape(s.stage)}</span>'
        f" · round {s.round} · workflow <code>{escape(s.workflow_id)}</code> · rule <code>{escape(d.rule)}</code>"
        f" · episode <code>{escape(d.source_episode_id)}</code></p>"
    )
    if s.task_id:
        parts.append(
            f'<p class="ok" id="published">Published as <code>{escape(s.task_id)}</code> in '
            f"{escape(s.task_set or '')} v{s.task_set_version}.</p>"
        )
    if s.reminders or s.escalated:
        parts.append(f"<p>Reminders sent: {s.reminders}; escalated: {'yes' if s.escalated else 'no'}.</p>")
    fidelity = d.fidelity
    parts.append(
        f'<h2>Fidelity</h2><p id="fidelity">{fidelity.reproduced} of {fidelity.calls} calls reproduced '
        f"exactly ({fidelity.share:.2f}; threshold {d.threshold:.2f}); {fidelity.injected_faults} live "
        "faults replayed from the fault plan.</p>"
    )
    if fidelity.mismatches:
        parts.append(
            _table(
                ("#", "tool", "what differs"),
                ((str(m.index), escape(m.tool), escape(m.what)) for m in fidelity.mismatches),
                "mismatches",
            )
        )
    parts.append(_validation(case))
    parts.append("<h2>Episode timeline</h2>")
    parts.append(
        _table(
            ("seq", "time", "event", "detail"),
            (
                (
                    str(e.seq),
                    escape(e.time.isoformat(timespec="seconds")),
                    escape(e.type.removeprefix("loopline.")),
                    escape(_detail(e.structured.get("data") or {})),
                )
                for e in case.timeline
            ),
            "timeline",
        )
    )
    parts.append("<h2>The draft</h2><h3>Work item</h3>" + _json(d.work_item.model_dump(mode="json")))
    parts.append(
        "<h3>Recorded calls (surrogates in place of PHI)</h3>"
        + _table(
            ("#", "call", "outcome"),
            (
                (str(i), escape(f"{c.call.name}({json.dumps(c.call.arguments)})"), escape(c.outcome.value))
                for i, c in enumerate(d.recorded)
            ),
            "calls",
        )
    )
    parts.append("<details><summary>Rebuilt world</summary>" + _json(d.world) + "</details>")
    if case.suggestion is not None:
        solved = (
            "solves it"
            if case.suggestion.solved
            else "does not solve it: " + "; ".join(case.suggestion.problems)
        )
        parts.append(
            f'<h2>Suggested resolution</h2><p id="suggestion">{escape(case.suggestion.resolution)} — the reference '
            f"specialist {escape(solved)}.</p>"
        )
    if case.note is not None:
        parts.append(f"<p>Note by {escape(case.note.reviewer)}: {escape(case.note.text)}</p>")
    if s.stage in ("awaiting_review", "returned"):
        parts.append(_forms(case))
    return _page(f"Draft {d.draft_id}: claim {d.work_item.item_id}", "".join(parts))


def _validation(case: DraftCase) -> str:
    report = case.report
    if report is None:
        return (
            '<h2>Validation</h2><p id="validation">Not validated yet (it runs when a reviewer approves).</p>'
        )
    verdict = '<span class="ok">every gate held</span>' if report.ok else '<span class="bad">failed</span>'
    rows = [
        ("gold scores 1.0", f"{report.gold_score}"),
        ("doing nothing scores 0", f"{report.noop_score}"),
        (
            "outcome-changing mutants rejected",
            f"{report.outcome_changing - len(report.accepted_mutants)} of {report.outcome_changing}",
        ),
        (
            "exploits above doing nothing with a wrong outcome",
            f"{len(report.winning_exploits)} of {report.exploits}",
        ),
    ]
    problems = "".join(f"<li>{escape(p)}</li>" for p in report.problems)
    return (
        f'<h2>Validation</h2><p id="validation">{verdict}</p>'
        + _table(("gate", "result"), ((escape(a), escape(b)) for a, b in rows))
        + (f'<ul id="problems">{problems}</ul>' if problems else "")
    )


def _forms(case: DraftCase) -> str:
    spec = case.spec or case.suggested_spec
    text = json.dumps(spec.model_dump(mode="json") if spec else None, indent=2, sort_keys=True)
    action = f"/review/drafts/{escape(case.draft.draft_id)}/decide"
    return (
        f'<h2>Decision</h2><form method="post" action="{action}" id="approve-form">'
        '<input type="hidden" name="decision" value="approve">'
        '<label>Your name <input name="reviewer" id="approve-reviewer" required></label>'
        f'<label>Outcome spec (edit if the suggestion is wrong)<textarea name="spec" id="spec">{escape(text)}</textarea></label>'
        '<label>Note <input name="note" id="note"></label>'
        '<button type="submit" id="approve">Approve and validate</button></form>'
        f'<form method="post" action="{action}" id="reject-form"><input type="hidden" name="decision" value="reject">'
        '<label>Your name <input name="reviewer" id="reject-reviewer" required></label>'
        '<label>Reason <input name="reason" id="reason" required></label>'
        '<button type="submit" id="reject">Reject</button></form>'
    )


def _detail(data: dict[str, Any]) -> str:
    """One line per event: the tool and outcome, or the status; no payloads."""
    if "call" in data:
        return f"{data['call'].get('name')} called"
    if "name" in data and "outcome" in data:
        return f"{data['name']}: {data['outcome']}"
    for key in ("status", "rule", "reason", "kind"):
        if key in data:
            return f"{key}: {str(data[key])[:120]}"
    return ""
