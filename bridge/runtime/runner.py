"""`EpisodeRunner`: production's composition of the engine: live toolbox, durable recorders, routing.

The runner is synchronous: the Toolbox and its backends are, and the HTTP API runs episodes on a
worker thread pool, one episode per thread. A runner holds no per-episode state, so one instance
can serve many threads as long as its policy client and toolbox can (the OpenAI client can; a
sim backend's world is per episode, so give each sim episode its own toolbox).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from pydantic import BaseModel

from adapters import Toolbox
from bridge.runtime.canary import CanaryRouter
from engine import (
    Clock,
    EpisodeConfig,
    EpisodeResult,
    EpisodeRules,
    EpisodeSession,
    IdFactory,
    Policy,
    RecorderFactory,
    builtin_rules,
    run_episode,
)
from schemas import WorkItem, new_id
from schemas.events import VerifierScored

Scorer = Callable[[WorkItem, EpisodeResult], VerifierScored | None]
"""A verifier that can judge a production episode once it ended (the work item's task is known to
it, and the live system's world after the episode): its verdict, or None when it cannot judge."""

log = logging.getLogger(__name__)


class EpisodeRunner:
    """Runs episodes through the engine: one session per work item, stepped by the routed policy."""

    def __init__(
        self,
        policy: Policy,
        toolbox: Toolbox,
        recorders: RecorderFactory,
        config: EpisodeConfig | None = None,
        *,
        rules: EpisodeRules | None = None,
        clock: Clock = time.monotonic,
        id_factory: IdFactory = new_id,
        router: CanaryRouter | None = None,
        scorer: Scorer | None = None,
    ) -> None:
        """`rules` are the domain's (without: the engine's built-in escalate tool); `clock` and
        `id_factory` are the engine's ports. `router` picks the policy per work item (champion or
        canary); without one, `policy` serves all. `scorer`, when given, judges each finished
        episode and its verdict is recorded on the episode's stream (`verifier.scored`)."""
        self.policy, self.router, self.toolbox, self.recorders = policy, router, toolbox, recorders
        self.config = config or EpisodeConfig()
        self.rules = rules or builtin_rules()
        self.clock, self.id_factory = clock, id_factory
        self.scorer = scorer

    def run(
        self,
        work_item: WorkItem,
        *,
        episode_id: str | None = None,
        task_id: str | None = None,
        payload_model: type[BaseModel] | None = None,
    ) -> EpisodeResult:
        """Run one episode to its end and return how it went; every step is recorded as it happens.

        `payload_model` is the work item payload's model, passed to the recorder so PHI fields are
        redacted by schema. Policy and tool failures end up in the result; only an error in the
        engine itself (or the recorder) propagates, after the episode's record is closed.
        """
        policy = self.router.pick(work_item.item_id) if self.router is not None else self.policy
        session = EpisodeSession(
            work_item,
            toolbox=self.toolbox,
            recorder=self.recorders(episode_id or self.id_factory()),
            rules=self.rules,
            config=self.config,
            clock=self.clock,
            id_factory=self.id_factory,
            task_id=task_id,
        )
        session.start(policy.ref, sampling=policy.sampling, payload_model=payload_model)
        result = run_episode(policy, session)
        if self.scorer is not None:
            try:
                verdict = self.scorer(work_item, result)
            except Exception:  # a verifier that cannot judge leaves the episode unscored, not failed
                log.exception("the scorer could not judge episode %s", result.episode_id)
                verdict = None
            if verdict is not None:
                session.recorder.scored(verdict)
        return result
