"""A domain in one place: the descriptor that holds everything Loopline knows about one business
domain, and the registry that finds descriptors by name.

Domains register through the `loopline.domains` entry-point group (pyproject.toml), one line each
(`rcm = "envs.rcm:DOMAIN"`). A lookup loads only the domain asked for, so a worker that has only a
task's `domain` name (or a verifier name like `rcm.v1`) finds it, and a bridge loads only the
domain it serves. Nothing in the core names a domain.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pkgutil import resolve_name
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from adapters.backend import SnapshottingBackend
from adapters.spec import ToolSpec
from engine.domain import ToolDomain
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall

if TYPE_CHECKING:
    from adapters.sandbox import SandboxDomain
    from envs.adversarial.operator import Operator
    from envs.contract import Action, Turn
    from envs.demo import DemoScenario
    from envs.promotion import Promotion
    from envs.rollout.policy import Policy
    from envs.verifiers.outcome_kinds import OutcomeKinds
    from envs.verifiers.port import Verifier

ENTRY_POINT_GROUP = "loopline.domains"


@dataclass(frozen=True)
class PolicyEntry:
    """A named scripted policy of a domain."""

    domain: str
    name: str
    policy: Policy
    description: str


@dataclass(frozen=True)
class CardSizes:
    """How large the verifier card's generated task sets are."""

    seed: int = 0
    per_carc: int = 19
    per_kind: int = 8
    queues: int = 48
    per_recipe: int = 25


@dataclass(frozen=True)
class CardParts:
    """What the verifier card runs for a domain."""

    admitted: str
    """The verifier admitted for training."""
    verifiers: tuple[str, ...]
    """The verifiers the card compares."""
    task_sets: Mapping[str, tuple[Callable[[int, int], list[Task]], str]]
    """Task set → ((seed, size) → tasks, the `CardSizes` field its size is)."""

    def generate(self, sizes: CardSizes) -> list[tuple[str, list[Task]]]:
        """The card's task sets at `sizes`."""
        return [
            (name, make(sizes.seed, getattr(sizes, field))) for name, (make, field) in self.task_sets.items()
        ]


@dataclass(frozen=True)
class TaskCheck:
    """A domain's own check of a task before any episode (rcm: its remittances pass pyx12)."""

    problems: Callable[[Task], list[str]]
    passed: str
    """What a clean run says held, e.g. `every remittance passes pyx12`."""


@dataclass(frozen=True)
class Reference:
    """The domain's reference specialist: its plan and the model name the bridge records."""

    plan: Callable[[WorkItem, tuple[Turn, ...]], Action]
    model: str


class DomainWorld(ABC):
    """A domain's simulated world over its tools, what the environments replay episodes in; a
    domain subclasses it with its `tools`, its sim, its outcome view and its facts."""

    tools: ClassVar[ToolDomain]

    @property
    def name(self) -> str:
        return self.tools.name

    @property
    def terminal_tools(self) -> frozenset[str]:
        return self.tools.rules.terminal_tools | {self.tools.rules.escalate_tool}

    @property
    def escalation_tools(self) -> frozenset[str]:
        return frozenset({self.tools.rules.escalate_tool})

    def ends_episode(self, work_item: WorkItem, call: ToolCall) -> bool:
        """Whether this call, answered OK, ends the episode: a terminal tool, or the escalate tool
        handing the whole work item to a human (not one claim of a queue)."""
        rules = self.tools.rules
        if call.name == rules.escalate_tool:
            return rules.escalation_ends(work_item, call.arguments)
        return call.name in rules.terminal_tools

    def tool_specs(self) -> Sequence[ToolSpec[Any, Any]]:
        return self.tools.tools

    @abstractmethod
    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SnapshottingBackend:
        """A fresh simulated backend over a copy of `world`; all randomness comes from `seed`."""

    @abstractmethod
    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        """The business outcome of a world, the part outcome checks compare: it leaves out what may
        rightly differ between two correct episodes (free-text notes, the order of attachments)."""

    @abstractmethod
    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        """The final world as collections of flat records that outcome specs assert over; each
        record says (`new`) whether the episode created it."""


@dataclass(frozen=True)
class DomainDescriptor:
    """Everything Loopline knows about one domain, in one place.

    `world` simulates it for the environments and holds its tools (`tool`, the part the bridge
    serves); the rest is what task sets, rollouts, verifiers, the adversarial battery, promotion,
    the agreement report, the card and the sandbox find here by the domain's name.
    """

    world: DomainWorld
    task_sets: Mapping[str, tuple[Callable[[int], list[Task]], str]] = field(default_factory=dict)
    """Name → (seed → tasks, description); the same seed gives the same tasks."""
    policies: Mapping[str, tuple[Policy, str]] = field(default_factory=dict)
    """Name → (scripted policy, description)."""
    verifiers: tuple[Verifier, ...] = ()
    mutants: tuple[Operator, ...] = ()
    """Mutation operators beyond the generic ones."""
    exploits: tuple[Policy, ...] = ()
    """Exploit policies beyond the generic ones."""
    promotion: Promotion | None = None
    outcome_kinds: OutcomeKinds | None = None
    card: CardParts | None = None
    reference: Reference | None = None
    task_check: TaskCheck | None = None
    expert_cases: Callable[[], Sequence[Any]] = tuple
    demo: DemoScenario | None = None
    """What `loopline demo --domain` runs for it."""
    sandbox: str | None = None
    """`module:attr` of the `adapters.sandbox.SandboxDomain` its sandbox live system serves, loaded
    by `load_sandbox` (FastAPI loads only when asked)."""

    @property
    def tool(self) -> ToolDomain:
        return self.world.tools

    @property
    def name(self) -> str:
        return self.world.name

    @property
    def terminal_tools(self) -> frozenset[str]:
        return self.world.terminal_tools

    @property
    def escalation_tools(self) -> frozenset[str]:
        return self.world.escalation_tools

    def ends_episode(self, work_item: WorkItem, call: ToolCall) -> bool:
        return self.world.ends_episode(work_item, call)

    def tool_specs(self) -> Sequence[ToolSpec[Any, Any]]:
        return self.world.tool_specs()

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SnapshottingBackend:
        return self.world.make_backend(world, seed=seed)

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        return self.world.outcome_view(world)

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        return self.world.outcome_facts(initial, final)

    def load_sandbox(self) -> SandboxDomain[Any] | None:
        sandbox: SandboxDomain[Any] | None = None if self.sandbox is None else resolve_name(self.sandbox)
        return sandbox


Domain: TypeAlias = DomainWorld | DomainDescriptor
"""What the generic environment takes: a domain's world, or its descriptor (which delegates to it)."""


class UnknownDomain(KeyError):
    """No domain of that name is registered."""


class DomainRegistry:
    """Descriptors by name: those the entry points name, loaded on first use, and any registered
    in-process."""

    def __init__(self, points: Sequence[EntryPoint] | None = None) -> None:
        found = entry_points(group=ENTRY_POINT_GROUP) if points is None else points
        self._points = {point.name: point for point in found}
        self._domains: dict[str, DomainDescriptor] = {}
        self._lock = threading.Lock()

    def register(self, domain: DomainDescriptor) -> DomainDescriptor:
        """Add a descriptor; registering the same name twice replaces it only with the same object."""
        with self._lock:
            known = self._domains.get(domain.name)
            if known is not None and known is not domain:
                raise ValueError(f"domain {domain.name!r} is already registered")
            self._domains[domain.name] = domain
        return domain

    def get(self, name: str) -> DomainDescriptor:
        """The domain called `name`, loading its entry point on first use."""
        if name not in self._domains and name in self._points:
            loaded = self._points[name].load()
            if not isinstance(loaded, DomainDescriptor) or loaded.name != name:
                raise TypeError(f"entry point {self._points[name].value} is not the {name!r} descriptor")
            self.register(loaded)
        try:
            return self._domains[name]
        except KeyError:
            raise UnknownDomain(f"no domain {name!r}; known: {', '.join(self.names()) or '(none)'}") from None

    def names(self) -> list[str]:
        """Every domain name, loaded or not."""
        return sorted({*self._domains, *self._points})

    def all(self) -> list[DomainDescriptor]:
        """Every domain, loading them all."""
        return [self.get(name) for name in self.names()]


DOMAINS = DomainRegistry()
"""The process-wide domain registry."""


class UnknownPromotion(KeyError):
    """No domain of that name registered a promotion."""


def promotion(domain: str) -> Promotion:
    """The promotion of `domain`."""
    try:
        found = DOMAINS.get(domain).promotion
    except UnknownDomain:
        found = None
    if found is None:
        known = ", ".join(d.name for d in DOMAINS.all() if d.promotion is not None) or "(none)"
        raise UnknownPromotion(f"domain {domain!r} promotes no edge cases; known: {known}")
    return found
