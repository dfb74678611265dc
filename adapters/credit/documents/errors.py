"""The one error the document readers raise: a value or header that cannot be read, and where."""

from __future__ import annotations


class DocumentError(ValueError):
    """A document that cannot be read; `location` names the cell (`Income statement!C12`) or the
    line (`line 9`), so the analyst (or the agent) can go and look."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.problem = message
