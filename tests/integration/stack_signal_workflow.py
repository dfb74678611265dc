"""A workflow that waits for a signal, then runs an activity on what the signal carried.

Kept in its own module because Temporal's sandbox re-imports workflow modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import activity, workflow


@dataclass(frozen=True)
class GreetInput:
    greeting: str


@dataclass(frozen=True)
class GreetResult:
    message: str


@activity.defn
async def compose_greeting(greeting: str) -> str:
    return f"{greeting}, from an activity"


@workflow.defn
class GreetOnSignalWorkflow:
    def __init__(self) -> None:
        self._name: str | None = None

    @workflow.signal
    def name_arrived(self, name: str) -> None:
        self._name = name

    @workflow.run
    async def run(self, data: GreetInput) -> GreetResult:
        await workflow.wait_condition(lambda: self._name is not None)
        message = await workflow.execute_activity(
            compose_greeting, f"{data.greeting} {self._name}", start_to_close_timeout=timedelta(seconds=10)
        )
        return GreetResult(message=message)
