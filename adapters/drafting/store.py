"""Where task drafts and their review live between the promotion workflow and the review desk.

A folder of JSON files, one concern each, every write atomic (a temporary file renamed into place)
and idempotent: drafts are written once under their id, specs and gate reports are content-addressed
(the file name is the hash of the content), a status file is replaced whole. The promotion
workflow's activities write it; the review API and `loopline promote` read it. Temporal histories
carry only the ids and hashes that point in here, never the drafts themselves.

    <root>/drafts/<draft_id>.json        TaskDraft
    <root>/suggestions/<draft_id>.json   Suggestion (the suggested spec's hash, the gold, solved?)
    <root>/specs/<sha256>.json           VerifierSpec
    <root>/reports/<sha256>.json         GateReport
    <root>/golds/<sha256>.json           Gold (a reviewer's own resolution, as calls)
    <root>/status/<draft_id>.json        PromotionStatus
    <root>/notes/<sha256>.json           ReviewNote (a reviewer's reason, kept out of histories)
    <root>/events/<task_id>.json         the sealed task.promoted event, published at least once
    <root>/notifications.jsonl           reminders and escalations sent to reviewers
    <root>/reveals.jsonl                 who read which document's real text (PHI), and when
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from adapters.drafting.draft import TaskDraft
from schemas.base import Contract
from schemas.tasks import VerifierSpec, content_hash
from schemas.tools import ToolCall

M = TypeVar("M", bound=BaseModel)
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")

Stage = Literal[
    "drafting",
    "refused",
    "duplicate",
    "awaiting_review",
    "validating",
    "returned",
    "rejected",
    "publishing",
    "published",
]
PENDING: frozenset[str] = frozenset({"awaiting_review", "returned"})
"""Stages in which a draft waits for a reviewer."""


class DraftStoreError(ValueError):
    """A key or a stored file the store cannot use."""


class Suggestion(Contract):
    """The outcome spec suggested for a draft, from the reference specialist's own resolution."""

    draft_id: str
    """The draft."""
    spec_hash: str
    """Hash of the suggested `VerifierSpec` (in `specs/`)."""
    gold: tuple[ToolCall, ...]
    """The reference specialist's calls on the draft: the gold trajectory."""
    resolution: str
    """The resolution the specialist reached, e.g. `post_write_off+escalate_to_human`."""
    solved: bool
    """Whether the specialist's gold meets the suggested spec and doing nothing does not."""
    problems: tuple[str, ...] = ()
    """Why not, when not solved."""


class Gold(Contract):
    """Calls that meet a spec: the reviewer's own resolution where it replaces the reference's."""

    calls: tuple[ToolCall, ...]
    """The gold trajectory (the reference specialist's reads, then the reviewer's writes)."""


class GateReport(Contract):
    """The validation gates on one candidate task."""

    task_id: str
    """The candidate task."""
    spec_hash: str
    """The spec it was validated with."""
    ok: bool
    """Every gate held."""
    gold_score: float | None = None
    """The gold trajectory's score (must be 1.0)."""
    noop_score: float | None = None
    """Doing nothing's score (must be 0)."""
    mutants: int = 0
    """Mutants of the gold that were replayed."""
    outcome_changing: int = 0
    """Of those, the ones that change the outcome (each must be rejected)."""
    accepted_mutants: tuple[str, ...] = ()
    """Outcome-changing mutants the verifier accepted."""
    exploits: int = 0
    """Exploit policies run."""
    winning_exploits: tuple[str, ...] = ()
    """Exploits with a wrong outcome that scored above doing nothing."""
    problems: tuple[str, ...] = ()
    """Every reason the candidate fails, one line each."""


class BlindScore(Contract):
    """A desk that never reads the evidence (one move on every claim, a code table), on a candidate."""

    desk: str
    """The blind desk."""
    score: float
    """Its score under the spec."""
    passed: bool
    """Whether it passes: a spec a blind desk passes rewards not reading the case."""


class GatePreview(Contract):
    """What the gates say about a spec before a reviewer commits to it; nothing is stored or decided."""

    spec_hash: str
    """The spec previewed."""
    gold_hash: str | None = None
    """The reviewer's gold previewed with it; None: the reference specialist's."""
    report: GateReport
    """The gates, exactly as the workflow runs them on an approval."""
    blind: tuple[BlindScore, ...] = ()
    """The domain's blind desks on the same task (shown, not a gate)."""

    @property
    def key(self) -> str:
        """The spec and gold previewed, as one string (`<spec hash>:<gold hash or nothing>`)."""
        return f"{self.spec_hash}:{self.gold_hash or ''}"

    @property
    def blind_passes(self) -> tuple[str, ...]:
        """The blind desks the spec lets pass."""
        return tuple(b.desk for b in self.blind if b.passed)


class Reveal(Contract):
    """One request to read a document's real text on the review page (the PHI access log)."""

    draft_id: str
    """The draft the document belongs to."""
    document_id: str
    """The document."""
    reviewer: str
    """Who asked (the signed-in identity)."""
    at: datetime
    """When."""
    granted: bool
    """Whether the vault revealed it."""
    why_not: str = ""
    """Why not, when refused."""


class ReviewNote(Contract):
    """What a reviewer wrote with a decision."""

    reviewer: str
    """Who decided."""
    text: str
    """The reason, in the reviewer's words."""


class StageRecord(Contract):
    """Where one draft's promotion stands, as its workflow knows it."""

    draft_id: str
    """The draft."""
    workflow_id: str
    """The promotion workflow that owns it."""
    fingerprint: str
    """The edge case."""
    stage: Stage
    """Where the promotion is."""
    round: int = 0
    """Review rounds so far (a failed gate starts another)."""
    spec_hash: str | None = None
    """The spec under review or approved."""
    report_id: str | None = None
    """The latest gate report."""
    reviewer: str | None = None
    """Who reviewed last."""
    note_id: str | None = None
    """The reviewer's latest note."""
    reminders: int = 0
    """Reminders sent to reviewers."""
    escalated: bool = False
    """Whether the review was escalated for taking too long."""


class PromotionStatus(StageRecord):
    """Where one draft stands: its workflow's record and what publishing it made."""

    task_id: str | None = None
    """The promoted task, once published."""
    task_set: str | None = None
    """The task set it joined."""
    task_set_version: int | None = None
    """The version that contains it."""
    updated_at: datetime
    """When this status was written."""


class Notification(Contract):
    """A reminder or escalation sent about a draft waiting for review."""

    draft_id: str
    """The draft."""
    kind: Literal["reminder", "escalation"]
    """A nudge to the reviewers, or to their lead."""
    sent_at: datetime
    """When."""
    round: int = Field(default=0, ge=0)
    """The review round it was about."""


class DraftStore:
    """Drafts, suggestions, specs, gate reports and statuses under `root`."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # -- generic ------------------------------------------------------------------------------
    def _path(self, kind: str, key: str) -> Path:
        if not _KEY.match(key):
            raise DraftStoreError(f"invalid key {key!r}")
        return self.root / kind / f"{key}.json"

    def _write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)

    def _read(self, path: Path, model: type[M]) -> M | None:
        try:
            return model.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValidationError as exc:
            raise DraftStoreError(
                f"{path} is not a valid {model.__name__}: {exc.error_count()} errors"
            ) from exc

    def put_content(self, kind: str, value: BaseModel) -> str:
        """Store `value` under the hash of its content and return the hash (idempotent)."""
        digest = content_hash(value.model_dump(mode="json"))
        path = self._path(kind, digest)
        if not path.exists():
            self._write(path, value.model_dump_json(indent=1))
        return digest

    # -- typed --------------------------------------------------------------------------------
    def put_draft(self, draft: TaskDraft) -> None:
        """Store a draft once; a draft with that id is never replaced."""
        path = self._path("drafts", draft.draft_id)
        if not path.exists():
            self._write(path, draft.model_dump_json(indent=1))

    def draft(self, draft_id: str) -> TaskDraft | None:
        return self._read(self._path("drafts", draft_id), TaskDraft)

    def put_suggestion(self, suggestion: Suggestion) -> None:
        self._write(self._path("suggestions", suggestion.draft_id), suggestion.model_dump_json(indent=1))

    def suggestion(self, draft_id: str) -> Suggestion | None:
        return self._read(self._path("suggestions", draft_id), Suggestion)

    def put_spec(self, spec: VerifierSpec) -> str:
        return self.put_content("specs", spec)

    def spec(self, spec_hash: str) -> VerifierSpec | None:
        return self._read(self._path("specs", spec_hash), VerifierSpec)

    def put_gold(self, gold: Gold) -> str:
        return self.put_content("golds", gold)

    def gold(self, gold_hash: str) -> Gold | None:
        return self._read(self._path("golds", gold_hash), Gold)

    def put_report(self, report: GateReport) -> str:
        return self.put_content("reports", report)

    def report(self, report_id: str) -> GateReport | None:
        return self._read(self._path("reports", report_id), GateReport)

    def put_note(self, note: ReviewNote) -> str:
        return self.put_content("notes", note)

    def note(self, note_id: str) -> ReviewNote | None:
        return self._read(self._path("notes", note_id), ReviewNote)

    def put_status(self, status: PromotionStatus) -> None:
        self._write(self._path("status", status.draft_id), status.model_dump_json(indent=1))

    def status(self, draft_id: str) -> PromotionStatus | None:
        return self._read(self._path("status", draft_id), PromotionStatus)

    def statuses(self) -> list[PromotionStatus]:
        """Every draft's status, newest first."""
        folder = self.root / "status"
        found = [self.status(p.stem) for p in folder.glob("*.json")] if folder.is_dir() else []
        return sorted((s for s in found if s is not None), key=lambda s: s.updated_at, reverse=True)

    def pending(self) -> list[PromotionStatus]:
        """Drafts waiting for a reviewer, oldest first."""
        return sorted((s for s in self.statuses() if s.stage in PENDING), key=lambda s: s.updated_at)

    def _append(self, name: str, value: BaseModel) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / name).open("a", encoding="utf-8") as handle:
            handle.write(value.model_dump_json() + "\n")

    def _lines(self, name: str, model: type[M]) -> list[M]:
        path = self.root / name
        if not path.exists():
            return []
        return [model.model_validate(json.loads(line)) for line in path.read_text().splitlines() if line]

    def notify(self, notification: Notification) -> None:
        """Append a reminder or escalation (a line per notification)."""
        self._append("notifications.jsonl", notification)

    def notifications(self, draft_id: str | None = None) -> list[Notification]:
        rows = self._lines("notifications.jsonl", Notification)
        return [n for n in rows if draft_id is None or n.draft_id == draft_id]

    def log_reveal(self, reveal: Reveal) -> None:
        """Append a request to read a document's real text (a line each, granted or not)."""
        self._append("reveals.jsonl", reveal)

    def reveals(self, draft_id: str | None = None) -> list[Reveal]:
        """The access log: every request to read a document's text (of `draft_id`), oldest first."""
        rows = self._lines("reveals.jsonl", Reveal)
        return [r for r in rows if draft_id is None or r.draft_id == draft_id]

    def put_event(self, task_id: str, structured: dict[str, object]) -> dict[str, object]:
        """Keep the task's `task.promoted` event (the first one written wins) and return it."""
        path = self._path("events", task_id)
        if not path.exists():
            self._write(path, json.dumps(structured, sort_keys=True))
        loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
