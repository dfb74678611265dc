"""The denial desk's terminal-state rules (`envs.verifiers.terminal`): nothing acts on a claim after
it is closed or handed to a human, and no write is sent again once it has landed (a second patient
bill, a second appeal, a posting past the balance)."""

from __future__ import annotations

from envs.rcm.intents import WRITES
from envs.verifiers.terminal import TerminalRules

TERMINAL = TerminalRules(
    domain="rcm",
    record="claim_id",
    writes=WRITES,
    ends={"close_claim": "it was closed", "escalate_to_human": "it was handed to a human"},
    after_end_name="nothing_after_resolution",
    after_end_kept="nothing acted on a claim after it was closed or handed to a human",
    not_attempted=frozenset({"validation", "unknown_tool"}),
    refusal_told=True,
)
nothing_after_resolution = TERMINAL.after_end
no_repeated_write = TERMINAL.no_repeated_write
