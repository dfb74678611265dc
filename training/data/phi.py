"""PHI out of datasets: every PHI-marked field replaced by a consistent synthetic surrogate.

What is PHI comes from the models (`schemas.phi.phi_field`): each tool call's arguments are read
with the tool's argument model and each result with its result model, so a field marked PHI is
found wherever it sits. Identifiers (names, birth dates, member ids, addresses) get surrogates of
their own kind from `adapters.surrogates.Surrogates`, keyed by the recorded value, so the same
value gets the same surrogate in every message and every row: a member id copied from the claim
into an eligibility call stays one value, which is what a policy learns to copy.

Free text marked PHI (a document's `text`) keeps its shape with each identifier found in the
conversation replaced by its surrogate, because the clinical coding in it is what a policy reads;
a text in which no identifier is found is replaced whole, so no PHI-marked value ever reaches a
dataset as recorded. A last pass replaces every identifier wherever else it appears as a word (the
work item, free-text arguments, error messages). Identifiers the conversation never shows in a
marked field cannot be recognised in free text: that is the limit of schema-driven redaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from adapters.chat import Message, arguments_text
from adapters.spec import ToolSpec
from adapters.surrogates import Surrogates
from training.data.rows import ChatRow

TEXT_FIELD = "text"
"""PHI fields of this name hold free text (the `Surrogates` convention)."""

_ADDRESS_PARTS = ("line1", "city", "postal_code")  # a state alone identifies no one (HIPAA Safe Harbor)


class _Collector(Surrogates):
    """Walks models like `Surrogates` but keeps every PHI value it meets, unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, Any]] = []

    def of(self, field: str, recorded: Any) -> Any:
        if recorded is not None:
            self.found.append((field, recorded))
        return recorded


class _Replacer(Surrogates):
    """Identifiers → their fitted surrogates; free text de-identified against the known identifiers."""

    def __init__(self, key: str, identifiers: Mapping[str, str], deidentify: Callable[[str], str]) -> None:
        super().__init__(key)
        self._identifiers = identifiers
        self._deidentify = deidentify

    def of(self, field: str, recorded: Any) -> Any:
        if isinstance(recorded, str) and field == TEXT_FIELD:
            cleaned = self._deidentify(recorded)
            return cleaned if cleaned != recorded else super().of(field, recorded)
        if isinstance(recorded, str) and recorded in self._identifiers:
            self.count += 1
            return self._identifiers[recorded]
        surrogate = super().of(field, recorded)
        if isinstance(recorded, Mapping) and isinstance(surrogate, dict):
            for part in _ADDRESS_PARTS:
                if recorded.get(part) in self._identifiers:
                    surrogate[part] = self._identifiers[recorded[part]]
        return surrogate


class PhiScrubber:
    """Replaces the PHI of chat rows by surrogates.

    `fit(rows)` learns every identifier the rows hold in a PHI field and picks its surrogate (the
    same key gives the same surrogates; one that happens to equal another recorded identifier is
    drawn again, so no recorded value can reappear as a surrogate); `row(row)` then replaces them,
    as fields and as words anywhere in the row.
    """

    def __init__(self, specs: Mapping[str, ToolSpec[Any, Any]], key: str = "loopline.surrogates.v1") -> None:
        self.specs = dict(specs)
        self.key = key
        self.replaced = 0
        """PHI field values replaced so far."""
        self._identifiers: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def fit(self, rows: Iterable[ChatRow]) -> PhiScrubber:
        """Learn the identifiers of `rows` (call before `row`, over every row of the dataset)."""
        found: list[tuple[str, Any]] = []
        for row in rows:
            collector = _Collector()
            list(_map_models(row.messages, self.specs, collector.model_data))
            found += collector.found
        raw = {value for value in _identifier_strings(found)}
        draw = Surrogates(self.key)
        mapping: dict[str, str] = {}
        for field, value in found:
            if field == TEXT_FIELD:
                continue
            for attempt in range(100):
                surrogate = draw.of(field, value if attempt == 0 else [value, attempt])
                strings = _surrogate_strings(value, surrogate)
                if not any(s in raw for s in strings.values()):
                    break
            for recorded, replacement in strings.items():
                mapping.setdefault(recorded, replacement)
        self._identifiers = mapping
        self._pattern = _words(mapping)
        return self

    def row(self, row: ChatRow) -> ChatRow:
        """`row` with every PHI value replaced; its shape and everything else unchanged."""
        replacer = _Replacer(self.key, self._identifiers, self.deidentify)
        messages = [
            _strings(m, self.deidentify) for m in _map_models(row.messages, self.specs, replacer.model_data)
        ]
        self.replaced += replacer.count
        return row.model_copy(update={"messages": messages})

    def deidentify(self, text: str) -> str:
        """`text` with every known identifier, as a whole word, replaced by its surrogate."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self._identifiers[m.group(0)], text)


def _identifier_strings(found: Iterable[tuple[str, Any]]) -> Iterator[str]:
    for field, value in found:
        if field == TEXT_FIELD:
            continue
        if isinstance(value, Mapping):
            yield from (str(value[p]) for p in _ADDRESS_PARTS if value.get(p))
        elif isinstance(value, str) and value.strip():
            yield value


def _surrogate_strings(recorded: Any, surrogate: Any) -> dict[str, str]:
    """Recorded identifier string → surrogate string (an address part by part)."""
    if isinstance(recorded, Mapping) and isinstance(surrogate, Mapping):
        return {str(recorded[p]): str(surrogate[p]) for p in _ADDRESS_PARTS if recorded.get(p)}
    if isinstance(recorded, str) and recorded.strip():
        return {recorded: str(surrogate)}
    return {}


def raw_phi_values(rows: list[ChatRow], specs: Mapping[str, ToolSpec[Any, Any]]) -> set[str]:
    """Every PHI value the rows hold as recorded (identifiers, address parts, free texts), as text."""
    collector = _Collector()
    for row in rows:
        list(_map_models(row.messages, specs, collector.model_data))
    values: set[str] = set()
    for _, value in collector.found:
        if isinstance(value, Mapping):
            values.update(str(value[p]) for p in _ADDRESS_PARTS if value.get(p))
        elif str(value).strip():
            values.add(str(value))
    return values


Transform = Callable[[type[BaseModel] | None, Any], Any]


def _map_models(
    messages: list[Message], specs: Mapping[str, ToolSpec[Any, Any]], transform: Transform
) -> Iterator[Message]:
    """Each message with its tool-call arguments and tool results passed through `transform` with
    the tool's argument or result model."""
    names: dict[str, str] = {}
    for message in messages:
        out = dict(message)
        if message.get("role") == "assistant" and message.get("tool_calls"):
            calls = []
            for raw in message["tool_calls"]:
                function = raw["function"]
                names[raw["id"]] = function["name"]
                spec = specs.get(function["name"])
                arguments = _json(function["arguments"])
                if isinstance(arguments, dict):
                    arguments = transform(spec.args_model if spec else None, arguments)
                    function = {**function, "arguments": arguments_text(arguments)}
                calls.append({**raw, "function": function})
            out["tool_calls"] = calls
        elif message.get("role") == "tool":
            spec = specs.get(names.get(str(message.get("tool_call_id")), ""))
            body = _json(message.get("content"))
            if isinstance(body, dict) and "result" in body:
                body = {**body, "result": transform(spec.result_model if spec else None, body["result"])}
                out["content"] = json.dumps(body, ensure_ascii=False, default=str)
        yield out


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        return None


def _words(identifiers: Mapping[str, str]) -> re.Pattern[str] | None:
    """One regex matching any identifier as a whole word, longest first."""
    if not identifiers:
        return None
    alternatives = sorted(identifiers, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, alternatives)) + r")(?![\w-])")


def _strings(value: Any, replace: Callable[[str], str]) -> Any:
    """`value` with `replace` applied to every string in it."""
    if isinstance(value, str):
        return replace(value)
    if isinstance(value, Mapping):
        return {k: _strings(v, replace) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v, replace) for v in value]
    return value
