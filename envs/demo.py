"""What a domain's demo is, as data: its work queue over the sandbox's starting world, the live
system's faults, the vocabulary training saw, the business outcomes reported later, and the
verifier card's sizes. Pure: `loopline.demo` reads a domain's `DemoScenario` and does the I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Protocol

from pydantic import BaseModel

from adapters.faults import FaultConfig
from schemas.tasks import Task, WorkItem


@dataclass(frozen=True)
class PlannedOutcome:
    """A business outcome the live system reports later, as the webhook body."""

    episode_id: str
    kind: str
    item_id: str
    amount: Decimal | None
    reason_codes: tuple[str, ...]

    def body(self, observed_at: datetime | None = None) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "kind": self.kind,
            "item_id": self.item_id,
            "observed_at": (observed_at or datetime.now(UTC)).isoformat(),
            "amount": None if self.amount is None else str(self.amount),
            "reason_codes": list(self.reason_codes),
        }


class RuleChange(Protocol):
    """A change a demo makes in the live system before the queue is worked (rcm: a payer's rule)."""

    @property
    def affected_claims(self) -> tuple[str, ...]:
        """Items of the queue whose right handling the change alters."""
        ...

    def make(self, live_url: str, admin_token: str) -> Any:
        """Make the change through the sandbox's admin routes; the world as it stood before."""
        ...

    def apply(self, world: Any) -> Any:
        """`world` with the change made."""
        ...

    def describe(self, world: Any) -> str:
        """One line for people."""
        ...


LaterOutcome = Callable[[str, WorkItem, Iterable[str]], PlannedOutcome | None]
"""(episode id, work item, the tools that succeeded) → what the live system reports later, if anything."""


@dataclass(frozen=True)
class DemoScenario:
    """One domain's demo."""

    queue_label: str
    """What the progress bar says it works."""
    world: Callable[[], BaseModel]
    """The world the sandbox starts from (the simulated reviewer's ground truth)."""
    work_queue: Callable[[Any], list[WorkItem]]
    faults: Callable[[], FaultConfig]
    vocabulary: Callable[[], dict[str, list[str]]]
    """The values training saw; the edge-case detector flags any other."""
    later_outcome: LaterOutcome
    card_sizes: Mapping[str, int]
    """`build_card` sizes small enough for a demo."""
    sandbox_settings: Callable[[], dict[str, Any]] = dict
    """The domain's own sandbox settings (credit: the documents' damage)."""
    rule_change: RuleChange | None = None
    improvement: bool = False
    """Whether the demo runs an improvement cycle on this domain."""


def vocabulary_of(
    tasks: Iterable[Task], fields: Iterable[str], *, numbers: bool = False
) -> dict[str, list[str]]:
    """Every value of `fields` anywhere in the tasks' worlds and gold calls (integers too when
    `numbers`)."""
    seen: dict[str, set[str]] = {name: set() for name in fields}
    kinds: tuple[type, ...] = (str, int) if numbers else (str,)
    for task in tasks:
        _collect(task.initial_world, seen, kinds)
        _collect([call.arguments for call in task.gold_solution], seen, kinds)
    return {name: sorted(values) for name, values in seen.items()}


def _collect(doc: Any, seen: dict[str, set[str]], kinds: tuple[type, ...]) -> None:
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            if key in seen and isinstance(value, kinds) and not isinstance(value, bool):
                seen[key].add(str(value))
            else:
                _collect(value, seen, kinds)
    elif isinstance(doc, list | tuple):
        for item in doc:
            _collect(item, seen, kinds)
