"""Every gold call in a row meets its tool's strict schema, and `train export` writes lines that
OpenAI's fine-tuning line format and TRL's conversational format (through a chat template) take as
they are; a row either would refuse is named, not written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envs.domain import DOMAINS
from loopline.cli import app
from training.data import ChatRow, DatasetSpec, LoadedTaskSet, build_dataset, load_task_set, write_dataset
from training.data.export import ExportError, export_lines, line_problems, openai_line, trl_line
from training.data.strict_calls import call_problems, strict_arguments


@pytest.fixture(scope="module")
def rows(small_base: LoadedTaskSet, small_edge: LoadedTaskSet) -> list[ChatRow]:
    credit = load_task_set("credit-base", root="/nonexistent", seed=0)
    return build_dataset(DatasetSpec(name="x", primary=(small_base, small_edge, credit))).rows


def test_every_gold_call_meets_the_strict_schema_of_its_tool(rows: list[ChatRow]) -> None:
    calls = [c for r in rows for m in r.messages for c in m.get("tool_calls") or ()]
    assert len(calls) > 500 and {r.tools[0]["function"]["strict"] for r in rows} == {True}
    assert [p for r in rows for p in call_problems(r.messages, r.tools)] == []
    nulls = [c for c in calls if None in json.loads(c["function"]["arguments"]).values()]
    assert nulls, "optional fields left out by the gold are written as null"


def test_a_filled_call_keeps_what_it_wrote_and_adds_defaults_or_nulls() -> None:
    specs = {s.name: s for d in DOMAINS.all() for s in d.tool_specs()}
    note = strict_arguments(specs["close_claim"], {"claim_id": "CLM-1", "reason": "paid"})
    assert list(note)[:2] == ["claim_id", "reason"] and note["note"] is None
    memo = "approved on the strength of the sponsor's guarantee"
    decision = strict_arguments(
        specs["record_recommendation"], {"package_id": "P-1", "decision": "approve", "memo": memo}
    )
    assert decision["conditions"] == [] and decision["memo"] == memo


def test_a_call_that_leaves_out_a_strict_key_is_named(rows: list[ChatRow]) -> None:
    row = next(r for r in rows if any(m.get("tool_calls") for m in r.messages))
    broken = row.model_copy(deep=True)
    call = next(m for m in broken.messages if m.get("tool_calls"))["tool_calls"][0]
    arguments = json.loads(call["function"]["arguments"])
    arguments.pop(next(iter(arguments)))
    call["function"]["arguments"] = json.dumps(arguments)
    with pytest.raises(ExportError, match="is a required property"):
        export_lines([broken], "openai")


def test_openai_lines_hold_only_what_the_fine_tuning_upload_takes(rows: list[ChatRow]) -> None:
    for row in rows:
        line = openai_line(row)
        assert set(line) <= {"messages", "tools", "parallel_tool_calls"}
        assert line_problems(line, "openai") == []
    calls = [m for r in rows for m in openai_line(r)["messages"] if m.get("tool_calls")]
    assert all(
        "content" not in m and isinstance(m["tool_calls"][0]["function"]["arguments"], str) for m in calls
    )


def test_a_line_with_loopline_keys_is_refused_by_the_openai_format(rows: list[ChatRow]) -> None:
    line = {**openai_line(rows[0]), "meta": rows[0].meta.model_dump()}
    assert any("meta" in p for p in line_problems(line, "openai"))
    orphan = openai_line(rows[0])
    orphan["messages"] = [m for m in orphan["messages"] if not m.get("tool_calls")]
    assert any("which no turn called" in p for p in line_problems(orphan, "openai"))


def test_trl_rows_render_through_a_chat_template_with_their_tools(rows: list[ChatRow]) -> None:
    from training.hf.tiny import train_tokenizer

    tokenizer = train_tokenizer(["claim payer denial"], vocab_size=300)
    for row in rows[:20]:
        line = trl_line(row)
        assert set(line) == {"messages", "tools"} and line_problems(line, "trl") == []
        text = tokenizer.apply_chat_template(line["messages"], tools=line["tools"], tokenize=False)
        assert isinstance(text, str)
        for message in line["messages"]:
            for call in message.get("tool_calls") or ():
                rendered = json.dumps(call["function"]["arguments"], ensure_ascii=False)
                assert rendered in text, "arguments render as the object the model learns to write"


def test_train_export_writes_each_format_from_a_dataset_folder(rows: list[ChatRow], tmp_path: Path) -> None:
    built = build_dataset(
        DatasetSpec(name="ex", primary=(load_task_set("credit-edge", root="/nonexistent", seed=0),))
    )
    folder = write_dataset(built, tmp_path / "datasets")
    for fmt in ("openai", "trl"):
        out = tmp_path / f"{fmt}.jsonl"
        done = CliRunner().invoke(app, ["train", "export", str(folder), "--format", fmt, "--out", str(out)])
        assert done.exit_code == 0, done.output
        lines = [json.loads(text) for text in out.read_text().splitlines()]
        assert len(lines) == built.manifest.rows and all(line_problems(x, fmt) == [] for x in lines)
    missing = CliRunner().invoke(
        app, ["train", "export", str(tmp_path), "--format", "trl", "--out", str(out)]
    )
    assert missing.exit_code == 2 and "holds no dataset" in missing.output
