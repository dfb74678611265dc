"""`FieldPolicy`: what each string of each recorded event may be, read from `fields.toml`.

The policy is data (bridge/phi/fields.toml, shipped with the package): per event type, a path into
the event's JSON data and its class (`literal`, `id:<shape>`, `code:<shape>`, `tool`, `text`,
`data`); the shapes as regular expressions; the stopwords names are not learned by, the particles
that join the name word after them, the transliterations of letters. The guard
(`bridge.phi.guard`) applies it; the file's header explains each class.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

Kind = Literal["literal", "id", "code", "tool", "text", "data"]
_KINDS = frozenset({"literal", "id", "code", "tool", "text", "data"})


class FieldPolicyError(ValueError):
    """The field policy file is malformed (an unknown class, a shape that is not a regex)."""


@dataclass(frozen=True)
class Rule:
    """The class of one path, with its shape for `id` and `code`."""

    kind: Kind
    shape: re.Pattern[str] | None = None


@dataclass(frozen=True)
class FieldPolicy:
    """Per event type, path → rule; and the stopwords, particles and transliterations of name matching."""

    events: dict[str, dict[str, Rule]]
    stopwords: frozenset[str]
    particles: frozenset[str] = frozenset()
    transliterations: Mapping[str, str] = field(default_factory=dict)

    def rules(self, event_type: str) -> dict[str, Rule]:
        """The rules of `event_type`; empty for a type the policy does not name (every string of
        it is then tokenised)."""
        return self.events.get(event_type, {})

    @classmethod
    def parse(cls, doc: dict[str, Any]) -> FieldPolicy:
        """The policy of a parsed `fields.toml` document (`FieldPolicyError` when malformed)."""
        try:
            shapes = {name: re.compile(text) for name, text in doc.get("shapes", {}).items()}
        except re.error as exc:
            raise FieldPolicyError(f"a shape of the PHI field policy is not a regex: {exc}") from exc
        events: dict[str, dict[str, Rule]] = {}
        for event_type, paths in doc.get("events", {}).items():
            events[event_type] = {
                path: _rule(spec, shapes, f"{event_type} {path}") for path, spec in paths.items()
            }
        names = doc.get("names", {})
        stopwords = frozenset(str(w).casefold() for w in names.get("stopwords", ()))
        particles = frozenset(str(w).casefold() for w in names.get("particles", ()))
        spelled = {str(k): str(v) for k, v in names.get("transliterations", {}).items()}
        if any(len(letter) != 1 for letter in spelled):
            raise FieldPolicyError(f"a transliteration is of one letter: {sorted(spelled)}")
        return cls(events, stopwords, particles, spelled)

    @classmethod
    def load(cls, path: Path | None = None) -> FieldPolicy:
        """The policy in `path`, or the one shipped with the package."""
        text = path.read_text() if path is not None else _shipped()
        try:
            return cls.parse(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise FieldPolicyError(f"the PHI field policy is not valid TOML: {exc}") from exc


def _rule(spec: Any, shapes: dict[str, re.Pattern[str]], where: str) -> Rule:
    if not isinstance(spec, str):
        raise FieldPolicyError(f"{where}: a class is a string, got {spec!r}")
    kind, _, shape = spec.partition(":")
    if kind not in _KINDS:
        raise FieldPolicyError(f"{where}: unknown class {kind!r} (one of {sorted(_KINDS)})")
    if kind in ("id", "code"):
        if shape not in shapes:
            raise FieldPolicyError(f"{where}: shape {shape!r} is not in [shapes]")
        return Rule(kind, shapes[shape])  # type: ignore[arg-type]
    if shape:
        raise FieldPolicyError(f"{where}: class {kind!r} takes no shape")
    return Rule(kind)  # type: ignore[arg-type]


@cache
def _shipped() -> str:
    return resources.files("bridge.phi").joinpath("fields.toml").read_text()


@cache
def default_policy() -> FieldPolicy:
    """The field policy shipped with the package (parsed once)."""
    return FieldPolicy.load()
