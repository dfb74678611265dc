"""`loopline export otel` sends one trace per demo episode, read from the archive, to a real
OTLP/HTTP receiver: an `invoke_agent` root, a `chat` span per model turn and an `execute_tool` span
per call under it, with the GenAI semantic-convention names of the pinned release."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from opentelemetry.semconv import _incubating
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv.schemas import Schemas
from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive
from envs.rollout.episode import EpisodeRecord
from loopline.cli import app
from loopline.interop.otel import genai
from loopline.interop.otel.export import send_traces
from loopline.interop.otel.spans import episode_trace
from schemas.events import ModelResponded, ToolCalled, ToolFailed
from schemas.traceparent import episode_traceparent, root_span_id
from tests.loopline.interop.otlp_receiver import otlp_receiver

CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_the_pinned_names_are_the_releases() -> None:
    assert _incubating is not None
    pinned = {
        value
        for name, value in vars(genai).items()
        if name.isupper()
        and isinstance(value, str)
        and value.startswith("gen_ai.")
        and name != "EVALUATION_RESULT_EVENT"
    }
    release = {
        v for k, v in vars(gen_ai_attributes).items() if k.startswith("GEN_AI_") and isinstance(v, str)
    }
    assert pinned <= release and len(pinned) >= 15
    assert Schemas.V1_44_0.value == genai.SCHEMA_URL


def _by_trace(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    traces: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for span in spans:
        traces[span["trace_id"]].append(span)
    return traces


def test_export_otel_sends_one_trace_per_episode_with_the_genai_names(
    demo_episodes: list[EpisodeRecord], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'archive.db'}"
    archive = SqlEventArchive(url)
    archive.create_schema()
    archive.append([ArchiveRecord.of(e) for r in demo_episodes for e in r.events])
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    with otlp_receiver() as (endpoint, received):
        done = CliRunner().invoke(
            app, ["export", "otel", "--since", since, "--db-url", url, "--endpoint", endpoint]
        )
        assert done.exit_code == 0, done.output
    traces = _by_trace(received.spans)
    assert len(traces) == len(demo_episodes)
    for record in demo_episodes:
        trace_id = episode_traceparent(record.episode_id).split("-")[1]
        spans = traces[trace_id]
        (root,) = [s for s in spans if s["parent_id"] is None]
        assert root["span_id"] == root_span_id(record.episode_id)
        assert (
            root["name"].startswith("invoke_agent ")
            and root["attributes"][genai.OPERATION_NAME] == "invoke_agent"
        )
        assert root["attributes"][genai.CONVERSATION_ID] == record.episode_id
        (verdict,) = root["events"]
        assert verdict == (
            "gen_ai.evaluation.result",
            {
                genai.EVALUATION_NAME: record.verdict.verifier,
                genai.EVALUATION_SCORE_VALUE: record.verdict.score,
                genai.EVALUATION_SCORE_LABEL: "pass" if record.verdict.passed else "fail",
            },
        )
        turns = [e for e in record.events if isinstance(e.data, ModelResponded)]
        calls = [e.data for e in record.events if isinstance(e.data, ToolCalled)]
        chats = [s for s in spans if s["attributes"][genai.OPERATION_NAME] == "chat"]
        tools = [s for s in spans if s["attributes"][genai.OPERATION_NAME] == "execute_tool"]
        assert (
            len(chats) == len(turns)
            and len(tools) == len(calls)
            and len(spans) == 1 + len(turns) + len(calls)
        )
        assert all(s["parent_id"] == root["span_id"] for s in chats + tools)
        assert [s["attributes"][genai.TOOL_NAME] for s in sorted(tools, key=lambda s: s["start"])] == [
            c.call.name for c in calls
        ]
        assert all(s["attributes"][genai.TOOL_TYPE] == "function" for s in tools)
        failed = {e.data.call_id for e in record.events if isinstance(e.data, ToolFailed)}
        assert {
            s["attributes"][genai.TOOL_CALL_ID] for s in tools if genai.ERROR_TYPE in s["attributes"]
        } == failed
        for span in spans:
            assert (
                span["schema_url"] == genai.SCHEMA_URL
                and span["resource"]["service.name"] == "loopline-bridge"
            )
            assert span["start"] <= span["end"]


def test_an_episode_in_a_callers_trace_hangs_under_the_callers_span(
    demo_episodes: list[EpisodeRecord],
) -> None:
    record = demo_episodes[0]
    stream = [e.model_copy(update={"traceparent": CALLER}) for e in record.events]
    plan = episode_trace(stream)
    with otlp_receiver() as (endpoint, received):
        assert send_traces([plan], endpoint) == len(plan.spans)
    root = next(s for s in received.spans if s["name"].startswith("invoke_agent"))
    assert root["trace_id"] == CALLER.split("-")[1] and root["parent_id"] == CALLER.split("-")[2]
    assert {s["trace_id"] for s in received.spans} == {root["trace_id"]}
    assert episode_trace(stream) == plan, "the same episode exports the same spans"
