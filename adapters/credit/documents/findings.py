"""What a reader noticed: figures it repaired exactly, and figures that may be wrong."""

from __future__ import annotations

from typing import Literal

from adapters.credit.documents.model import Statement
from schemas.base import Contract


class Finding(Contract):
    """One note on one figure (or one line) of a read document."""

    kind: Literal["repaired", "suspect"]
    """`repaired`: damage undone with certainty (a misplaced separator, one bracket lost, two
    cells run together that split only one way); `suspect`: the figure may be wrong (it breaks
    its line's sign convention or a total that should add up) and needs the source checked."""
    location: str
    """The cell (`Income statement!C12`) or line (`line 9`) of the document."""
    line: str | None = None
    """The statement line key, when the finding is about one line."""
    period: str | None = None
    """The period label, when the finding is about one period."""
    message: str
    """What was seen and what was done, in words an analyst reads."""


class ParsedStatement(Contract):
    """A statement read back from a document, with what the reader noticed."""

    statement: Statement
    """The figures as read (repairs applied; suspect figures kept as read)."""
    findings: tuple[Finding, ...] = ()
    """Everything repaired or suspect, in document order."""

    def suspect(self) -> set[tuple[str, str]]:
        """(line, period) pairs whose figure may be wrong."""
        return {
            (f.line, f.period)
            for f in self.findings
            if f.kind == "suspect" and f.line is not None and f.period is not None
        }
