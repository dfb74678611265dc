"""The demo's report page: every section from its inputs, values escaped, plots inline."""

from __future__ import annotations

from datetime import UTC, datetime

from loopline.demo.charts import FamilyRates, Rate
from loopline.demo.html_report import EpisodeEntry, ImprovementView, ReportInputs, render
from loopline.inspect.timeline import TimelineRow
from loopline.streams.audit import AuditOutcome


def _inputs() -> ReportInputs:
    row = TimelineRow(seq=0, offset_s=0.0, kind="episode.started", what="<b>denial</b>", detail="{}")
    return ReportInputs(
        domain="rcm",
        seconds=12.0,
        episodes=[EpisodeEntry("ep-1", "CLM-1", "completed", [row])],
        events=1,
        archived=1,
        outcomes=0,
        audit=AuditOutcome(streams=1, events=1),
        tool_rates=[],
        edge_cases=[],
        latency=None,
    )


def test_values_are_escaped_and_the_page_fetches_nothing() -> None:
    html = render(_inputs())
    assert "<b>denial</b>" not in html and "&lt;b&gt;denial&lt;/b&gt;" in html
    assert "<script" not in html and "src=" not in html
    assert 'id="ep-ep-1"' in html and 'href="#status-completed"' in html
    assert "The improvement stage did not run" in html and "The card was not built" in html


def test_the_improvement_section_draws_rates_with_intervals_and_the_tests_path() -> None:
    inputs = _inputs()
    inputs.improvement = ImprovementView(
        adapter_id="cycle-good",
        gate="passed",
        decision="promote",
        reason="as good as the champion",
        problems=[],
        families=[
            FamilyRates("carc:45", Rate(0, 8), Rate(7, 8)),
            FamilyRates("<carc:1>", Rate(8, 8), Rate(8, 8)),
        ],
        day=[("RCM-1", "carc:45", "cycle-good", True)],
        trail=[
            {
                "type": "loopline.adapter.promoted.v1",
                "time": datetime(2026, 1, 1, tzinfo=UTC),
                "data": {"x": 1},
            }
        ],
        path=[0.4, 0.8, 1.2],
        upper=2.94,
        lower=-2.94,
    )
    html = render(inputs)
    assert html.count("<svg") == 2 and 'id="rates-plot"' in html and 'id="sprt-plot"' in html
    assert "0/8 (0%)" in html and "[0, 32]" in html and "7/8 (88%)" in html  # Wilson bounds, not ±
    assert "&lt;carc:1&gt;" in html and "<carc:1>" not in html
    assert "The loop closed" in html and 'id="day2-RCM-1"' in html
    failing = inputs.improvement.__class__(**{**inputs.improvement.__dict__, "problems": ["no gain"]})
    inputs.improvement = failing
    assert "the loop did not close: no gain" in render(inputs)


def test_an_adapter_that_never_served_is_said_so_not_shown_as_zero() -> None:
    inputs = _inputs()
    inputs.improvement = ImprovementView(
        adapter_id="cycle-good",
        gate="stopped it",
        decision="stopped_by_gate",
        reason="base: drop",
        problems=["the gate stopped the cycle"],
        families=[FamilyRates("carc:45", Rate(0, 8), Rate(0, 0))],
        day=[],
        trail=[],
        path=[],
        upper=2.94,
        lower=-2.94,
    )
    html = render(inputs)
    assert "not served (no adapter loaded)" in html and "0/0" not in html
    assert "No discordant pair: the test never moved." in html
