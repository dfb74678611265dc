"""The expert label store: pass/fail labels on trajectories, with reasons, beside the event archive.

A label judges one trajectory (its `subject`, the episode id of an archived episode, or a case id
of the hand-written expert set) as correct work or not, independently of any verifier. One label per
(subject, reviewer): relabelling replaces it. The table lives in the archive's database under its
own name, created as the archive creates its tables; it is a record, never rebuilt from events.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy.engine import Engine
from sqlmodel import Field as Column
from sqlmodel import SQLModel

from bridge.store.engine import StoreConfig, insert_for, make_engine

_TZ = sa.DateTime(timezone=True)
SUBJECT_PATTERN = r"^[A-Za-z0-9_.:/@-]+$"
NAME_PATTERN = r"^[^\x00-\x1f\x7f]+$"

LabelValue = Literal["pass", "fail"]
LabelSource = Literal["reviewer", "expert_set"]


class ExpertLabel(BaseModel):
    """An expert's judgement of one trajectory: correct work (pass) or not (fail), and why."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    subject: str = Field(min_length=1, max_length=128, pattern=SUBJECT_PATTERN)
    """The trajectory: an archived episode's id, or an expert-set case id."""
    reviewer: str = Field(min_length=1, max_length=128, pattern=NAME_PATTERN)
    """Who labelled it."""
    label: LabelValue
    """`pass` when the trajectory did the work right, `fail` otherwise."""
    reason: str = Field(min_length=1, max_length=4000)
    """Why, in words another billing specialist can check (never blank)."""
    task_id: str | None = Field(default=None, max_length=256)
    """The task the trajectory worked, when known."""
    verifier: str | None = Field(default=None, max_length=128)
    """The verifier whose verdict the reviewer saw while labelling; None for a blind label."""
    source: LabelSource = "reviewer"
    """`reviewer` (labelled through the API or CLI) or `expert_set` (the hand-written cases)."""
    labelled_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When it was labelled (a naive time is read as UTC)."""

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the reason must say why, not be blank")
        return value.strip()

    @field_validator("labelled_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value

    @property
    def passed(self) -> bool:
        """Whether the expert judged the trajectory correct."""
        return self.label == "pass"


class LabelRow(SQLModel, table=True):
    """One expert label; the primary key makes relabelling a replacement."""

    __tablename__ = "verifier_labels"

    subject: str = Column(primary_key=True, max_length=128)
    reviewer: str = Column(primary_key=True, max_length=128)
    label: str = Column(max_length=8)
    reason: str = Column(sa_type=sa.Text)
    task_id: str | None = Column(default=None, max_length=256)
    verifier: str | None = Column(default=None, max_length=128, index=True)
    source: str = Column(max_length=16, index=True)
    labelled_at: datetime = Column(sa_type=_TZ, index=True)


LABELS: sa.Table = LabelRow.__table__  # type: ignore[attr-defined]


class SqlLabelStore:
    """Expert labels on SQLite or Postgres, in the archive's database."""

    def __init__(self, engine: Engine | StoreConfig | str) -> None:
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)

    def create_schema(self) -> None:
        """Create the label table when it does not exist yet."""
        SQLModel.metadata.create_all(self.engine, tables=[LABELS])

    def put(self, label: ExpertLabel) -> bool:
        """Store `label`, replacing the reviewer's earlier label of the subject; True if it replaced one."""
        row = label.model_dump()
        with self.engine.begin() as conn:
            replaced = conn.execute(_key(label.subject, label.reviewer)).first() is not None
            stmt = insert_for(conn, LABELS)
            updated = {name: stmt.excluded[name] for name in row if name not in ("subject", "reviewer")}
            conn.execute(
                stmt.on_conflict_do_update(index_elements=["subject", "reviewer"], set_=updated), row
            )
        return replaced

    def get(self, subject: str, reviewer: str) -> ExpertLabel | None:
        """The reviewer's label of `subject`, if any."""
        with self.engine.connect() as conn:
            row = conn.execute(_key(subject, reviewer)).mappings().first()
        return None if row is None else ExpertLabel.model_validate(dict(row))

    def list_labels(
        self,
        *,
        subject: str | None = None,
        reviewer: str | None = None,
        verifier: str | None = None,
        source: LabelSource | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[ExpertLabel]:
        """Labels matching every filter given, oldest first (every one when `limit` is None)."""
        if (limit is not None and limit < 1) or offset < 0:
            raise ValueError("limit must be >= 1 and offset >= 0")
        query: Any = sa.select(LABELS)
        for column, value in (
            ("subject", subject),
            ("reviewer", reviewer),
            ("verifier", verifier),
            ("source", source),
        ):
            if value is not None:
                query = query.where(LABELS.c[column] == value)
        query = query.order_by(LABELS.c.labelled_at, LABELS.c.subject, LABELS.c.reviewer)
        with self.engine.connect() as conn:
            rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
        return [ExpertLabel.model_validate(dict(row)) for row in rows]

    def count(self) -> int:
        """Labels stored."""
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(LABELS)).scalar_one())


def _key(subject: str, reviewer: str) -> Any:
    return sa.select(LABELS).where(LABELS.c.subject == subject, LABELS.c.reviewer == reviewer)
