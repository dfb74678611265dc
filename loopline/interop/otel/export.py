"""Trace plans sent over OTLP/HTTP (protobuf) with the OpenTelemetry SDK's exporter.

The spans are built as the SDK's `ReadableSpan`s with the plan's ids and times (an episode is
exported after it happened, from the archive), then handed to `OTLPSpanExporter`, which encodes
and posts them as any instrumented service would.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event as SdkEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from loopline.interop.otel import genai
from loopline.interop.otel.spans import TracePlan

SCOPE = InstrumentationScope("loopline.interop.otel", "1", schema_url=genai.SCHEMA_URL)


class ExportFailed(RuntimeError):
    """The collector did not take the spans."""


def _ns(when: datetime) -> int:
    return int(when.timestamp() * 1_000_000_000)


def readable_spans(plan: TracePlan, resource: Resource) -> list[ReadableSpan]:
    """The plan's spans as the SDK's finished spans."""
    trace_id = int(plan.trace_id, 16)
    flags = TraceFlags(TraceFlags.SAMPLED)
    out = []
    for span in plan.spans:
        context = SpanContext(trace_id, int(span.span_id, 16), is_remote=False, trace_flags=flags)
        parent = None
        if span.parent_id is not None:
            remote = span.parent_id == plan.remote_parent
            parent = SpanContext(trace_id, int(span.parent_id, 16), is_remote=remote, trace_flags=flags)
        status = Status(StatusCode.ERROR, span.error) if span.error else Status(StatusCode.UNSET)
        out.append(
            ReadableSpan(
                name=span.name,
                context=context,
                parent=parent,
                resource=resource,
                attributes=dict(span.attributes),
                events=[SdkEvent(e.name, dict(e.attributes), _ns(e.time)) for e in span.events],
                kind=SpanKind.CLIENT if span.kind == "client" else SpanKind.INTERNAL,
                status=status,
                start_time=_ns(span.start),
                end_time=_ns(span.end),
                instrumentation_scope=SCOPE,
            )
        )
    return out


def send_traces(
    plans: Iterable[TracePlan], endpoint: str, *, service: str = "loopline-bridge", timeout_s: float = 10.0
) -> int:
    """Send every plan to the OTLP/HTTP traces `endpoint` (e.g. `http://collector:4318/v1/traces`);
    the number of spans sent. Raises `ExportFailed` when the collector refuses them."""
    resource = Resource.create({"service.name": service}, schema_url=genai.SCHEMA_URL)
    spans = [s for plan in plans for s in readable_spans(plan, resource)]
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout_s)
    try:
        if spans and exporter.export(spans) is not SpanExportResult.SUCCESS:
            raise ExportFailed(f"the collector at {endpoint} did not accept {len(spans)} spans")
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    return len(spans)
