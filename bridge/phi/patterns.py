"""PHI pattern classes for free text: where identifiers sit in a string, by their shape.

Pure and offline: regular expressions for the HIPAA Safe Harbor identifier classes that have a
recognisable shape (SSN, phone and fax numbers, e-mail, URLs, IP addresses, full dates, member ids
by payer format, medical record and account numbers named as such, street addresses, ZIP codes,
titled names). Names and other values without a shape are the job of `KnownPhi`: the values the
episode's PHI-marked fields held. `find_spans` gives (start, end, class) for every match.
"""

from __future__ import annotations

import re

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|Jun(?:e)?|Jul(?:y)?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_MBI_ALPHA = "[AC-HJKMNP-RT-Y]"
_STREET = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    r"Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl)"
)
_ID_LABEL = (
    r"(?:member|subscriber|beneficiary|policy|insurance|health\s+plan|medicare|medicaid|"
    r"medical\s+record|MRN|account|acct|patient|chart|license|licence|certificate|device|serial|"
    r"vehicle|VIN|plate)"
)

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")),
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)),
    ("ip", re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")),
    ("ssn", re.compile(r"(?<![\w-])\d{3}[- .]\d{2}[- .]\d{4}(?![\w-])")),
    ("ssn", re.compile(r"\b(?:SSN|social\s+security(?:\s+(?:number|no\.?|#))?)\W{0,3}(?P<v>\d{9})\b", re.I)),
    (
        "phone",
        re.compile(r"(?<![\w-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\w-])"),
    ),
    (
        "phone",
        re.compile(r"\b(?:phone|tel|telephone|fax|cell|mobile)\W{0,3}(?P<v>\+?\d[\d\s().-]{8,}\d)", re.I),
    ),
    ("date", re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])")),
    ("date", re.compile(r"(?<![\w/])\d{1,2}[/-]\d{1,2}[/-](?:\d{4}|\d{2})(?![\w/])")),
    ("date", re.compile(rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b", re.I)),
    ("date", re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+\d{{4}}\b", re.I)),
    (
        "member_id",  # Medicare Beneficiary Identifier, with or without its dashes
        re.compile(
            rf"\b[1-9]{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?"
            rf"{_MBI_ALPHA}{{2}}\d{{2}}\b"
        ),
    ),
    ("member_id", re.compile(r"\b[A-Z]{2,4}\d{6,12}\b")),  # commercial payers: prefix + digits
    (
        "record_id",  # any id introduced as a member, record, account, licence or device number
        re.compile(
            rf"\b{_ID_LABEL}\s*(?:id|ID|number|no\.?|num|#)?\s*[:#=]?\s*(?P<v>(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{{3,}})",
            re.I,
        ),
    ),
    (
        "address",
        re.compile(
            rf"\b\d{{1,6}}\s+(?:[A-Z0-9][A-Za-z0-9'.-]*\s+){{1,4}}{_STREET}\b\.?"
            r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|#)\.?\s*[A-Za-z0-9-]+)?"
        ),
    ),
    ("address", re.compile(r"\bP\.?\s?O\.?\s+Box\s+\d+\b", re.I)),
    ("zip", re.compile(r"\b(?:[A-Z]{2}|ZIP(?:\s+code)?:?)\s+(?P<v>\d{5}(?:-\d{4})?)\b")),
    (
        "name",  # a capitalised name after a title, a role or a relation
        re.compile(
            r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|patient|pt|member|subscriber|guarantor|daughter|son|wife|"
            r"husband|spouse|mother|father|sister|brother|guardian|caregiver|parent)\.?\s+"
            r"(?P<v>[A-Z][a-z'-]+(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z'-]+)?)"
        ),
    ),
)
"""(class, pattern); a pattern with a group `v` marks only that group as PHI (the label stays)."""


def find_spans(text: str) -> list[tuple[int, int, str]]:
    """Every PHI span the patterns find in `text`: (start, end, class), possibly overlapping."""
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(text):
            group = "v" if "v" in pattern.groupindex else 0
            start, end = match.span(group)
            if end > start:
                spans.append((start, end, kind))
    return spans
