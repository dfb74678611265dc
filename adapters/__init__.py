"""Tools and their backends: one definition, a simulated and a live backend (design.md §4)."""

from adapters.backend import SnapshottingBackend, ToolBackend, ToolFailure
from adapters.spec import ToolSpec, strict_schema, tools_hash
from adapters.toolbox import Toolbox

__all__ = [
    "SnapshottingBackend",
    "ToolBackend",
    "ToolFailure",
    "ToolSpec",
    "Toolbox",
    "strict_schema",
    "tools_hash",
]
