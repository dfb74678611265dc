"""Dataset rows as the files other trainers take as they are: OpenAI's chat fine-tuning JSONL and
TRL's conversational `messages` + `tools` JSONL. Pure, but for `write_export`.

A row keeps Loopline's provenance (`meta`, `extra`) beside the conversation; neither format has a
place for it (OpenAI's upload refuses a line with any other key), so an export writes the
conversation only and the dataset's manifest stays the record of where each row came from.

- `openai`: `messages` (an assistant turn with calls has no `content`; arguments are JSON text),
  the row's strict `tools`, and `parallel_tool_calls: false` when no turn makes more than one call.
- `trl`: messages as chat templates take them (arguments as objects, `content` never null, each
  tool turn named after its tool) and the `tools`, which SFTTrainer passes to `apply_chat_template`.

Each line is checked against the format's JSON Schema (`formats/`, with its source) and every call
against its tool's strict schema before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

import jsonschema_rs

from training.data.rows import ChatRow, template_messages
from training.data.strict_calls import call_problems

ExportFormat = Literal["openai", "trl"]

SCHEMA_FILES: Mapping[str, str] = {
    "openai": "openai_chat_fine_tuning_line.schema.json",
    "trl": "trl_conversational_line.schema.json",
}


class ExportError(ValueError):
    """A row that would not be accepted in the asked format, with every reason."""


@cache
def _validator(fmt: str) -> Any:
    schema = json.loads((Path(__file__).parent / "formats" / SCHEMA_FILES[fmt]).read_text())
    return jsonschema_rs.validator_for(schema)


def openai_line(row: ChatRow) -> dict[str, Any]:
    """The row as one line of an OpenAI chat fine-tuning file."""
    messages = []
    for message in row.messages:
        item = {k: v for k, v in message.items() if v is not None or k != "content"}
        messages.append(item)
    most = max((len(m.get("tool_calls") or ()) for m in row.messages), default=0)
    line: dict[str, Any] = {"messages": messages, "tools": row.tools}
    if most <= 1:
        line["parallel_tool_calls"] = False
    return line


def trl_line(row: ChatRow) -> dict[str, Any]:
    """The row as one line of a TRL conversational dataset with tools: the messages as
    `template_messages` gives them to a chat template (what serve-policy renders too), each tool
    turn named after its tool."""
    names = {call["id"]: call["function"]["name"] for m in row.messages for call in m.get("tool_calls") or ()}
    messages = template_messages(row.messages)
    for item in messages:
        if item["role"] == "tool":
            item["name"] = names.get(item.get("tool_call_id", ""), "")
    return {"messages": messages, "tools": row.tools}


def line_problems(line: Mapping[str, Any], fmt: ExportFormat) -> list[str]:
    """Why `line` is not a line of `fmt` whose calls meet their tools' strict schemas ([] if it is)."""
    problems = [f"{e.instance_path or '(line)'}: {e.message}" for e in _validator(fmt).iter_errors(line)]
    if problems:
        return problems[:5]
    messages, tools = line["messages"], line.get("tools") or []
    problems += call_problems(messages, tools)
    called: set[str] = set()
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            if call["id"] in called:
                problems.append(f"messages[{index}]: call id {call['id']!r} is used twice")
            called.add(call["id"])
        if message["role"] == "tool" and message["tool_call_id"] not in called:
            problems.append(f"messages[{index}]: answers {message['tool_call_id']!r}, which no turn called")
    return problems


def export_lines(rows: Iterable[ChatRow], fmt: ExportFormat) -> list[dict[str, Any]]:
    """Every row as a line of `fmt`; raises `ExportError` naming each row that would be refused."""
    render = openai_line if fmt == "openai" else trl_line
    lines, refused = [], []
    for number, row in enumerate(rows, start=1):
        line = render(row)
        problems = line_problems(line, fmt)
        if problems:
            refused.append(f"row {number} ({row.meta.task_id}): {'; '.join(problems)}")
        lines.append(line)
    if refused:
        raise ExportError(f"{len(refused)} rows would be refused: " + " | ".join(refused[:5]))
    return lines


def export_bytes(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """The JSONL file: one line per row, UTF-8."""
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    ).encode()


def write_export(rows: Iterable[ChatRow], fmt: ExportFormat, path: Path) -> int:
    """Write the rows as a `fmt` JSONL file at `path`; the number of lines written."""
    lines = export_lines(rows, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(export_bytes(lines))
    return len(lines)
