"""The SQL event archive, its projections, and the read API over them (sqlmodel lives here only).

- `SqlEventArchive`: every event as received, idempotent on (source, id); projections applied in the
  same transaction by pure reducers (`reducers.py` → `ops.py` → `apply.py`); `rebuild` drops and
  rebuilds them.
- `SqlEpisodeReader` (`EpisodeStore`): what the HTTP API and `loopline inspect` read.
- `audit_archive`: verify every stream's hash chain as stored.
"""

from bridge.store.archive import (
    AppendResult,
    ArchiveRecord,
    ProjectionConflict,
    RebuildResult,
    SqlEventArchive,
)
from bridge.store.audit import AuditReport, StreamBreak, audit_archive
from bridge.store.engine import Engine, StoreConfig, StoreError, make_engine
from bridge.store.reader import EpisodeStore, SqlEpisodeReader
from bridge.store.views import (
    EdgeCaseView,
    EpisodeDetail,
    EpisodeSummary,
    OutcomeView,
    StoredEvent,
    ToolCallView,
    ToolErrorRate,
)

__all__ = [
    "AppendResult",
    "ArchiveRecord",
    "AuditReport",
    "EdgeCaseView",
    "Engine",
    "EpisodeDetail",
    "EpisodeStore",
    "EpisodeSummary",
    "OutcomeView",
    "ProjectionConflict",
    "RebuildResult",
    "SqlEpisodeReader",
    "SqlEventArchive",
    "StoreConfig",
    "StoreError",
    "StoredEvent",
    "StreamBreak",
    "ToolCallView",
    "ToolErrorRate",
    "audit_archive",
    "make_engine",
]
