"""`run_episode`: a session stepped by a policy until the episode ends.

Every way out records `episode.ended`, so no episode is left open in the record, not even one
cut short by a bug (which is recorded, then re-raised).
"""

from __future__ import annotations

from engine.config import EpisodeResult
from engine.policy import Policy
from engine.reply import PolicyError
from engine.session import EpisodeSession


def run_episode(policy: Policy, session: EpisodeSession) -> EpisodeResult:
    """Ask `policy` for turns and act on them until the session's episode ends."""
    try:
        while session.result is None:
            spent = session.spent()
            if spent is not None:
                session.escalate(spent, "budget")
                return session.end("budget_exhausted")
            asked_at = session.clock()
            try:
                reply = policy.complete(session.messages, session.tools, session.view)
            except PolicyError as exc:
                session.escalate(f"policy error: {exc}", "runtime")
                return session.end("failed", error=str(exc))
            session.respond(reply, (session.clock() - asked_at) * 1000)
        return session.result
    except Exception as exc:
        session.crash(exc)
        raise
