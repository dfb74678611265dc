"""Scrubbing free text: every PHI span (a known value of the episode, or a pattern class) replaced
by its token, so a name in an escalation reason joins the same token as the claim's name field.

Pure: the caller passes `tokenize` (which also keeps the raw value for the vault).
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.phi.directory import PhiDirectory
from bridge.phi.known import KnownPhi
from bridge.phi.patterns import find_spans


def merge_spans(spans: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans joined, in order: one replacement per stretch of PHI."""
    merged: list[tuple[int, int]] = []
    for start, end, _kind in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def scrub_text(
    text: str,
    known: KnownPhi | None,
    tokenize: Callable[[str], str],
    directory: PhiDirectory | None = None,
) -> str:
    """`text` with every known value (the episode's, the tenant's `directory`) and every
    pattern-class match replaced by its token."""
    if not text:
        return text
    spans = find_spans(text) + (known.spans(text) if known is not None else [])
    if directory is not None:
        spans += directory.spans(text)
    return replace_spans(text, spans, tokenize)


def replace_spans(text: str, spans: list[tuple[int, int, str]], tokenize: Callable[[str], str]) -> str:
    """`text` with each stretch the (possibly overlapping) `spans` cover replaced by its token."""
    if not spans:
        return text
    out: list[str] = []
    cursor = 0
    for start, end in merge_spans(spans):
        out.append(text[cursor:start])
        out.append(tokenize(text[start:end]))
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
