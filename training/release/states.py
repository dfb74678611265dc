"""An adapter's release states and the moves between them. Pure.

    candidate ──deploy──► canary ──promote──► champion ──(next promotion)──► retired
        │                   │                     │
        └──retire──► retired└──roll back──► rolled_back ◄──roll back──┘

A candidate passed the gate (or was forced through it); a canary serves a share of live episodes;
the champion serves the rest; a rolled-back adapter never serves again. At most one canary and
one champion at a time. Rolling back a champion restores the champion it replaced (retired →
champion).
"""

from __future__ import annotations

from typing import Literal

AdapterState = Literal["candidate", "canary", "champion", "retired", "rolled_back"]

MOVES: dict[AdapterState, frozenset[AdapterState]] = {
    "candidate": frozenset({"canary", "retired"}),
    "canary": frozenset({"champion", "rolled_back"}),
    "champion": frozenset({"retired", "rolled_back"}),
    "retired": frozenset({"champion"}),
    "rolled_back": frozenset(),
}


class ReleaseError(ValueError):
    """A release step that is not allowed, with the reason."""


def check_move(adapter_id: str, current: AdapterState, target: AdapterState) -> None:
    """Raise `ReleaseError` unless `current → target` is a move of the release process."""
    if target not in MOVES[current]:
        allowed = ", ".join(sorted(MOVES[current])) or "nothing (final)"
        raise ReleaseError(f"adapter {adapter_id} is {current}: it can move to {allowed}, not {target}")
