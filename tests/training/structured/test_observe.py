"""The structured policy sees every value of the conversation, dated and summed as a specialist would."""

from __future__ import annotations

from training.data import LoadedTaskSet, task_rows
from training.structured.observe import observe


def _row(tasks: LoadedTaskSet, family: str):  # type: ignore[no-untyped-def]
    task = next(t for t in tasks.tasks if f"carc:{family}" in t.tags)
    return task_rows(task, task_set=tasks.label, role="primary")[0]


def test_the_work_item_and_each_result_become_items_with_their_turn(small_base: LoadedTaskSet) -> None:
    row = _row(small_base, "16")
    obs = observe(row.messages[:4], row.tools)  # system, work item, get_remittance call and result
    claim = next(i for i in obs.items if i.path == "work_item.claim_id")
    assert (claim.turn, claim.kind) == (0, "str")
    remark = next(i for i in obs.items if i.path == "get_remittance.remittances.lines.remarks.code")
    assert (remark.turn, remark.tool, remark.value) == (1, "get_remittance", "M76")
    assert [t.tool for t in obs.turns] == ["get_remittance"] and obs.turns[0].outcome == "ok"


def test_dates_are_counted_from_the_day_worked_and_the_date_of_service(small_base: LoadedTaskSet) -> None:
    row = _row(small_base, "16")
    obs = observe(row.messages[:4], row.tools)
    produced = next(i for i in obs.items if i.path.endswith("remittances.production_date"))
    assert obs.today is not None and obs.service_date is not None
    assert (
        produced.days_from_today
        == (__import__("datetime").date.fromisoformat(str(produced.value)) - obs.today).days
    )
    service = next(i for i in obs.items if i.path.endswith("lines.service_date"))
    assert service.days_from_service == 0


def test_a_chart_is_read_word_by_word_with_the_head_of_its_line(small_base: LoadedTaskSet) -> None:
    row = _row(small_base, "16")
    obs = observe(row.messages[:-1], row.tools)
    words = [i for i in obs.items if i.kind == "word"]
    assert any(w.qualifier == "Diagnoses" for w in words)
    assert any(w.qualifier == "Line" and w.value == "99203" for w in words)


def test_adjustment_amounts_are_summed_per_code_and_per_line(small_base: LoadedTaskSet) -> None:
    row = _row(small_base, "2")
    obs = observe(row.messages[:4], row.tools)
    adjustments = [i for i in obs.items if i.path.endswith("lines.adjustments.amount")]
    total = next(i for i in obs.items if i.path == "get_remittance.sum.all")
    assert total.kind == "derived"
    assert total.value == round(sum(float(a.value or 0) for a in adjustments), 2)
    assert any(i.path == "get_remittance.sum.code" and i.qualifier == "PR-2" for i in obs.items)


def test_each_date_is_measured_against_each_limit_in_days_a_tool_returned(small_base: LoadedTaskSet) -> None:
    """CO-29 turns on whether the 277CA accepted the claim within the payer's filing limit: the policy
    sees that margin as one number, as a specialist reckons it."""
    row = _row(small_base, "29")
    obs = observe(row.messages[:-1], row.tools)
    limit = next(i for i in obs.items if i.path.endswith("timely_filing_days"))
    assert isinstance(limit.value, float) and obs.service_date is not None and obs.today is not None
    margins = [i for i in obs.items if i.qualifier == "timely_filing_days" and i.kind == "derived"]
    dated = [
        i
        for i in obs.items
        if i.kind == "date" and not i.path.startswith("call.") and not i.path.endswith("birth_date")
    ]
    assert dated and len(margins) == 2 * len(dated)
    for item in dated:
        day = __import__("datetime").date.fromisoformat(str(item.value))
        after = next(
            m for m in margins if m.path == f"{item.path}.past_limit_from_service" and m.index == item.index
        )
        assert after.value == (day - obs.service_date).days - limit.value
        before = next(
            m for m in margins if m.path == f"{item.path}.past_limit_to_today" and m.index == item.index
        )
        assert before.value == (obs.today - day).days - limit.value
    assert not any(i.path.startswith("call.") and i.path.endswith("past_limit_to_today") for i in obs.items)
