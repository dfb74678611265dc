"""Where PHI sits in a model's JSON: a plan compiled once from the model's JSON Schema, applied to data.

The JSON Schema is the source of truth because the data we redact *is* JSON (tool arguments as the
model wrote them, results and payloads as dumped), and pydantic has already resolved every typing
construct into it: nested models are `$ref`s, `list`/`tuple` are `items`/`prefixItems`, `dict[str, M]`
is `additionalProperties`, `X | None` and other unions are `anyOf`/`oneOf`. A property carrying
`"x-phi": true` (schemas.phi) is PHI as a whole, whatever its type.

Unions are redacted conservatively: every branch's plan applies, so a field is tokenised if *any*
branch marks it PHI. Over-redaction of a look-alike field in another branch is the safe failure.

Redaction fails closed: an object whose schema lists its properties is *closed*, and a key it does
not declare (an undeclared tool argument, a field a newer client sends) has every leaf value
tokenised, its key too unless the key is a plain identifier. Only an object that declares itself
open (`additionalProperties`: `dict[str, X]`, `extra="allow"`) keeps undeclared keys, under the
plan of its declared value type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel

from schemas.phi import PHI_KEY

Tokenize = Callable[[Any], str]
"""Turns one raw JSON value into its token (and remembers the raw value for the vault)."""
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
"""An undeclared key kept as it is: an identifier says what the value was meant to be."""


class PlanNode:
    """What to redact inside one JSON value. Mutable only while compiling (for recursive models)."""

    __slots__ = ("alts", "closed", "declared", "extra", "items", "open_extra", "phi", "prefix", "props")

    def __init__(self) -> None:
        self.phi = False
        self.closed = False
        self.open_extra = False
        self.declared: frozenset[str] = frozenset()
        self.props: dict[str, PlanNode] = {}
        self.extra: PlanNode | None = None
        self.items: PlanNode | None = None
        self.prefix: list[PlanNode | None] = []
        self.alts: list[PlanNode] = []

    def children(self) -> list[PlanNode]:
        """Every node directly below this one."""
        kids = [*self.props.values(), *self.alts, *(n for n in self.prefix if n is not None)]
        return kids + [n for n in (self.extra, self.items) if n is not None]


class _Compiler:
    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.defs: Mapping[str, Any] = schema.get("$defs", {})
        self.by_ref: dict[str, PlanNode] = {}

    def node(self, schema: Any) -> PlanNode:
        node = PlanNode()
        if not isinstance(schema, Mapping):
            return node
        if schema.get(PHI_KEY) is True:
            node.phi = True
            return node  # the whole value goes; nothing inside needs a plan
        ref = schema.get("$ref")
        if isinstance(ref, str):
            node.alts.append(self.resolve(ref))
        for key in ("anyOf", "oneOf", "allOf"):
            node.alts.extend(self.node(branch) for branch in schema.get(key, ()))
        properties = schema.get("properties") or {}
        for name, sub in properties.items():
            node.props[name] = self.node(sub)
        node.declared = frozenset(properties)
        additional = schema.get("additionalProperties")
        node.open_extra = additional is True or isinstance(additional, Mapping)
        node.closed = not node.open_extra and (bool(properties) or additional is False)
        if isinstance(additional, Mapping):
            node.extra = self.node(additional)
        if isinstance(schema.get("items"), Mapping):
            node.items = self.node(schema["items"])
        node.prefix = [self.node(sub) for sub in schema.get("prefixItems", ())]
        return node

    def resolve(self, ref: str) -> PlanNode:
        # Recursive models refer to themselves: hand out the node first, fill it in after.
        if ref in self.by_ref:
            return self.by_ref[ref]
        target = PlanNode()
        self.by_ref[ref] = target
        name = ref.rsplit("/", 1)[-1]
        built = self.node(self.defs.get(name, {}))
        for slot in PlanNode.__slots__:
            setattr(target, slot, getattr(built, slot))
        return target


def _prune(root: PlanNode) -> PlanNode | None:
    """Drop every branch that cannot reach a PHI mark; None when nothing in the tree is PHI."""
    nodes: dict[int, PlanNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in nodes:
            nodes[id(node)] = node
            stack.extend(node.children())
    # Fixpoint rather than memoised DFS: in a recursive model a node's answer may depend on
    # an ancestor still being computed, and a memoised "no" from inside the cycle would be wrong.
    # A closed object needs a plan even without PHI: its undeclared keys are tokenised.
    reaches = {key: node.phi or node.closed for key, node in nodes.items()}
    changed = True
    while changed:
        changed = False
        for key, node in nodes.items():
            if not reaches[key] and any(reaches[id(child)] for child in node.children()):
                reaches[key] = changed = True
    if not reaches[id(root)]:
        return None

    def keep(node: PlanNode | None) -> PlanNode | None:
        return node if node is not None and reaches[id(node)] else None

    for node in nodes.values():
        node.props = {name: sub for name, sub in node.props.items() if reaches[id(sub)]}
        node.alts = [alt for alt in node.alts if reaches[id(alt)]]
        node.extra, node.items = keep(node.extra), keep(node.items)
        node.prefix = [keep(sub) for sub in node.prefix]
    return root


class Plan:
    """A compiled plan: unions already merged, so applying it is one walk over the data."""

    __slots__ = ("closed", "declared", "extra", "items", "phi", "prefix", "props")

    def __init__(self) -> None:
        self.phi = False
        self.closed = False
        self.declared: frozenset[str] = frozenset()
        self.props: dict[str, Plan] = {}
        self.extra: Plan | None = None
        self.items: Plan | None = None
        self.prefix: list[Plan | None] = []


def _flatten(nodes: list[PlanNode]) -> list[PlanNode]:
    """The nodes with their union branches expanded (each node once)."""
    out: list[PlanNode] = []
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(node.alts)
    return out


def _merge(roots: list[PlanNode]) -> Plan | None:
    """One `Plan` for the union of `roots` (memoised per node set, so recursive models terminate)."""
    memo: dict[frozenset[int], Plan] = {}

    def build(nodes: list[PlanNode | None]) -> Plan | None:
        every = _flatten([n for n in nodes if n is not None])
        flat = [n for n in every if n.phi or n.closed or n.children()]
        if not flat:
            return None
        key = frozenset(id(n) for n in flat)
        if key in memo:
            return memo[key]
        plan = memo[key] = Plan()
        if any(n.phi for n in flat):
            plan.phi = True
            return plan
        # Closed only when no branch declares the object open; a key any branch declares is known.
        plan.closed = any(n.closed for n in flat) and not any(n.open_extra for n in every)
        plan.declared = frozenset(name for n in every for name in n.declared)
        for name in {name for n in flat for name in n.props}:
            sub = build([n.props.get(name, n.extra) for n in flat])
            if sub is not None:
                plan.props[name] = sub
        plan.extra = build([n.extra for n in flat])
        plan.items = build([n.items for n in flat])
        longest = max(len(n.prefix) for n in flat)
        plan.prefix = [
            build([n.prefix[i] if i < len(n.prefix) else n.items for n in flat]) for i in range(longest)
        ]
        return plan

    return build(list(roots))


@cache
def plan_for(model: type[BaseModel]) -> Plan | None:
    """The redaction plan of `model` (cached per class); None when it has no PHI anywhere and no
    closed object (so no undeclared key to tokenise either).

    Both the validation and the serialization schema are compiled, so a field that exists only
    on one side (a computed field, a serialization alias) is covered as well.
    """
    root = PlanNode()
    for mode in ("validation", "serialization"):
        schema = model.model_json_schema(mode=mode)
        root.alts.append(_Compiler(schema).node(schema))
    pruned = _prune(root)
    return None if pruned is None else _merge([pruned])


def apply_plan(plan: Plan, value: Any, tokenize: Tokenize, undeclared: Tokenize | None = None) -> Any:
    """A copy of `value` with every PHI position the plan names replaced by its token, and every
    key a closed object does not declare tokenised leaf by leaf (by `undeclared` when given, so a
    caller can tell PHI-marked values from undeclared ones).

    `None` stays `None`: an absent optional field holds nothing to hide.
    """
    if value is None:
        return None
    if plan.phi:
        return tokenize(value)
    extra_tokenize = tokenize if undeclared is None else undeclared
    if isinstance(value, Mapping):
        props, extra = plan.props, plan.extra
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key, extra)
            if sub is not None:
                out[key] = apply_plan(sub, item, tokenize, undeclared)
            elif plan.closed and key not in plan.declared:
                plain = _PLAIN_KEY.match(key)
                out[key if plain else extra_tokenize(key)] = tokenize_leaves(item, extra_tokenize)
            else:
                out[key] = item
        return out
    if isinstance(value, list | tuple):
        prefix, items = plan.prefix, plan.items
        result = []
        for index, item in enumerate(value):
            sub = prefix[index] if index < len(prefix) else items
            result.append(item if sub is None else apply_plan(sub, item, tokenize, undeclared))
        return result
    return value


def tokenize_leaves(value: Any, tokenize: Tokenize) -> Any:
    """Every non-null scalar replaced by its token, keys and shape kept (data without a model)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return {key: tokenize_leaves(item, tokenize) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [tokenize_leaves(item, tokenize) for item in value]
    return tokenize(value)
