"""The runtime over the real RCM tools: the sim world, and the live backend against the sandbox API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, World, seed_world
from adapters.rcm.live import LiveBackend
from adapters.rcm.sandbox import FaultConfig, FaultRule, SandboxConfig, serve_in_thread
from bridge.phi import Redactor
from bridge.runtime import EpisodeRunner, OpenAIChatPolicy
from engine import EpisodeConfig, ScriptedPolicy, act, call, say
from envs.rcm.domain import RULES
from schemas import ToolOutcome, WorkItem, verify_chain
from schemas.events import EpisodeStarted, ToolFailed, ToolReturned
from tests.bridge.runtime.captured import CapturedEpisodes
from tests.bridge.runtime.doubles import FakeClock, FixedWallClock, SequentialIds
from tests.bridge.runtime.fake_openai_server import FakeOpenAIServer, tool_call_reply

pytestmark = pytest.mark.integration

RCM_ARGS = {spec.name: spec.args_model for spec in RCM_TOOLS}
CONFIG = EpisodeConfig(max_steps=10, max_seconds=60.0)


def denial(claim_id: str, carc: str) -> WorkItem:
    return WorkItem(
        domain="rcm",
        kind="denial",
        item_id=claim_id,
        instructions="Work this denied claim to resolution.",
        payload={"claim_id": claim_id, "carc": carc},
    )


def rcm_recorders(redactor: Redactor) -> CapturedEpisodes:
    return CapturedEpisodes(
        redactor,
        args_models=RCM_ARGS,
        clock=FixedWallClock(),
        id_factory=SequentialIds("evt"),
        snapshot_redact=redactor.snapshot_redactor(World),  # the seed world holds (invented) PHI
    )


def test_a_served_model_escalates_a_b7_denial_to_credentialing_in_the_sim_world(
    openai_server: FakeOpenAIServer, redactor: Redactor
) -> None:
    backend = SimBackend(seed_world())
    recorders = rcm_recorders(redactor)
    escalate = {
        "claim_id": "CLM-1021",
        "queue": "credentialing",
        "recommended_action": "review",
        "reason": "CARC B7: the rendering provider is not certified with Medicare on this date.",
        "amount": None,
    }
    openai_server.enqueue(
        tool_call_reply("get_remittance", {"claim_id": "CLM-1021"}),
        tool_call_reply("escalate_to_human", escalate),
    )
    with OpenAIChatPolicy(openai_server.url, model="rcm-base") as policy:
        runner = EpisodeRunner(
            policy, Toolbox(RCM_TOOLS, backend), recorders, CONFIG, rules=RULES, clock=FakeClock()
        )
        result = runner.run(denial("CLM-1021", "B7"))

    assert result.status == "escalated" and result.escalation is not None
    assert (result.escalation.trigger, result.escalation.queue, result.escalation.recommendation) == (
        "policy",
        "credentialing",
        "review",
    )
    assert len(backend.world.escalations) == 1  # the domain tool filed it in the work queue
    assert verify_chain(recorders.events) is None
    started = recorders.events[0].data
    assert isinstance(started, EpisodeStarted)
    assert "escalate" not in started.tools and len(started.tools) == len(RCM_TOOLS)
    assert started.world_snapshot is not None
    assert started.world_snapshot != seed_world().snapshot()  # PHI in the snapshot was tokenised
    assert recorders.events[-1].data.world_hash is not None  # type: ignore[attr-defined]


@pytest.fixture
def sandbox_with_stalling_write_offs() -> Iterator[str]:
    stall = FaultRule(endpoint="post_write_off", kind="timeout", delay_ms=800, apply_write=True)
    with serve_in_thread(SandboxConfig(faults=FaultConfig(rules=(stall,)))) as url:
        yield url


def test_a_write_that_times_out_against_the_live_api_is_recorded_unknown(
    sandbox_with_stalling_write_offs: str, redactor: Redactor
) -> None:
    backend = LiveBackend(sandbox_with_stalling_write_offs, timeout_s=0.3)
    recorders = rcm_recorders(redactor)
    write_off = {"claim_id": "CLM-1007", "amount": 180.0, "reason_code": "timely_filing", "note": None}
    script = [
        act(call("post_write_off", write_off)),
        act(call("get_claim", {"claim_id": "CLM-1007"})),
        say("The write-off timed out; the claim shows it posted, so nothing more to do."),
    ]
    try:
        runner = EpisodeRunner(
            ScriptedPolicy(script), Toolbox(RCM_TOOLS, backend), recorders, CONFIG, rules=RULES
        )
        result = runner.run(denial("CLM-1007", "29"))
    finally:
        backend.close()

    outcomes = [e.data for e in recorders.events if isinstance(e.data, ToolFailed | ToolReturned)]
    unknown, read = outcomes
    assert isinstance(unknown, ToolFailed) and unknown.outcome is ToolOutcome.UNKNOWN
    assert unknown.error.kind == "timeout"
    assert isinstance(read, ToolReturned)
    assert (result.status, result.tool_calls, result.unknown_outcomes) == ("completed", 2, 1)
    assert recorders.events[0].data.world_snapshot is None  # type: ignore[attr-defined]  # live: no snapshot
    assert verify_chain(recorders.events) is None
