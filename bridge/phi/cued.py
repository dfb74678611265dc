"""Names and handles a cue next to them gives away, where their shape alone does not: a surname in
lower case after a title (`ms whitcombe`), a given name signed with an initial (`- Ingrid K.`), a
user name after its label (`login jdoe`).

Pure; the name lexicon (`bridge.phi.names`) tells a name from a common word.
"""

from __future__ import annotations

import re

from bridge.phi.names import lexicon

_TITLE_LOWER = re.compile(
    r"\b(?i:mr|mrs|ms|miss|mx)\.?\s+(?P<v>[a-z][a-z'\u2019-]+(?:\s+[a-z][a-z'\u2019-]+)?)(?![\w'-])"
)
_GIVEN_INITIAL = re.compile(r"(?<![\w.'-])(?<![A-Z][a-z] )(?P<v>[A-Z][a-z]{2,}\s+[A-Z]\.)(?!\s*[A-Z]?[a-z])")
_HANDLE = re.compile(
    r"\b(?i:log-?in|user\s*name|user\s*id|userid|handle|screen\s*name)\s*(?:is\s+|[:=]\s*)?"
    r"(?P<v>[A-Za-z0-9][A-Za-z0-9._-]{3,})(?![\w@])"
)


def find_cued_name_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) for each name or user name a cue next to it gives away."""
    lex = lexicon()
    spans: list[tuple[int, int, str]] = []
    for match in _TITLE_LOWER.finditer(text):
        words = match.group("v").split()
        if lex.kind(words[0]) == "common":
            continue
        start, end = match.span("v")
        if len(words) == 2 and lex.kind(words[1]) != "strong":
            end = start + len(words[0])
        spans.append((start, end, "name"))
    for match in _GIVEN_INITIAL.finditer(text):
        if lex.kind(match.group("v").split()[0]) == "strong":
            spans.append((*match.span("v"), "name"))
    for match in _HANDLE.finditer(text):
        value = match.group("v")
        if any(not c.isalpha() for c in value) or lex.kind(value) not in ("common", "weak"):
            spans.append((*match.span("v"), "username"))
    return spans
