"""Find values never seen in training tasks: a recursive scan of JSON for configured field names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

MAX_DEPTH = 32


def unknown_values(
    doc: Any, known: Mapping[str, frozenset[str]], *, path: str = "$"
) -> Iterator[tuple[str, str, str]]:
    """`(field, value, path)` for every value of a known field name that is not in its set.

    Field names match case-insensitively; a field may hold a scalar or a list of scalars, so
    `{"carc": "16"}`, `{"CARC": 16}` and `{"carcs": [...]}` (when `carcs` is configured) all count.
    """
    if not known:
        return
    yield from _scan(doc, known, path, 0)


def _scan(
    doc: Any, known: Mapping[str, frozenset[str]], path: str, depth: int
) -> Iterator[tuple[str, str, str]]:
    if depth > MAX_DEPTH:  # hostile nesting: stop rather than recurse without end
        return
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            name = str(key).lower()
            here = f"{path}.{key}"
            if name in known:
                for item in value if isinstance(value, list) else [value]:
                    if (
                        isinstance(item, str | int)
                        and not isinstance(item, bool)
                        and str(item) not in known[name]
                    ):
                        yield name, str(item), here
            yield from _scan(value, known, here, depth + 1)
    elif isinstance(doc, list):
        for index, item in enumerate(doc):
            yield from _scan(item, known, f"{path}[{index}]", depth + 1)
