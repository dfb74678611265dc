"""`Toolbox`: binds tool specs to a backend, validates every call, never raises.

Malformed arguments, unknown tools and backend failures all come back as a failed `ToolResult`
the agent can read: a bad call is data, not an exception that kills the episode.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from adapters.backend import ToolBackend, ToolFailure
from adapters.spec import ToolSpec, tools_hash
from schemas.tools import ToolCall, ToolError, ToolOutcome, ToolResult


class Toolbox:
    """The tools an agent may call, over one backend."""

    def __init__(self, specs: Iterable[ToolSpec[Any, Any]], backend: ToolBackend) -> None:
        self._specs = {spec.name: spec for spec in specs}
        self.backend = backend

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def spec(self, name: str) -> ToolSpec[Any, Any] | None:
        return self._specs.get(name)

    def specs(self) -> list[ToolSpec[Any, Any]]:
        return list(self._specs.values())

    def openai_tools(self) -> list[dict[str, Any]]:
        return [spec.openai_tool() for spec in self._specs.values()]

    def tools_hash(self) -> str:
        return tools_hash(self.specs())

    def call(self, call: ToolCall) -> ToolResult:
        """Validate and execute one call; every failure becomes a failed or unknown result."""
        start = time.perf_counter()
        spec = self._specs.get(call.name)
        if spec is None:
            offered = ", ".join(sorted(self._specs))
            return _failed(
                call,
                ToolError(kind="unknown_tool", message=f"no tool {call.name!r}; offered: {offered}"),
                start,
            )
        try:
            args = spec.args_model.model_validate(call.arguments)
        except ValidationError as exc:
            return _failed(call, validation_error(exc), start)
        try:
            result = self.backend.invoke(spec.name, args)
        except ToolFailure as failure:
            return _failed(call, failure.error, start, failure.outcome)
        except Exception as exc:
            error = ToolError(kind="backend", message=f"{type(exc).__name__}: {exc}")
            return _failed(call, error, start)
        return ToolResult(
            call_id=call.call_id,
            name=call.name,
            outcome=ToolOutcome.OK,
            result=result.model_dump(mode="json"),
            latency_ms=(time.perf_counter() - start) * 1000,
        )


def validation_error(exc: ValidationError) -> ToolError:
    """A pydantic validation error as a tool error the model can act on."""
    problems = [
        {"field": ".".join(str(p) for p in err["loc"]) or "(arguments)", "problem": err["msg"]}
        for err in exc.errors(include_url=False)
    ]
    summary = "; ".join(f"{p['field']}: {p['problem']}" for p in problems[:5])
    return ToolError(kind="validation", message=f"invalid arguments: {summary}", details={"errors": problems})


def _failed(
    call: ToolCall, error: ToolError, start: float, outcome: ToolOutcome = ToolOutcome.FAILED
) -> ToolResult:
    return ToolResult(
        call_id=call.call_id,
        name=call.name,
        outcome=outcome,
        error=error,
        latency_ms=(time.perf_counter() - start) * 1000,
    )
