"""PHI pattern classes for free text: where identifiers sit in a string, by their shape.

Pure and offline: regular expressions for the HIPAA Safe Harbor identifier classes that have a
recognisable shape (SSN, phone and fax numbers, e-mail, URLs, IP addresses, full dates, ages over
89, member ids by payer format, medical record, account and NPI numbers named as such, street
addresses, a city and ZIP code before or after a state's code, names after a title, a role or a
relation, in any script's capitals, with their particles and initials). Names and other values without a shape are the job of `KnownPhi`: the values the
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
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|IA|ID|IL|IN|KS|KY|LA|MA|MD|ME|MI|MN|MO|MS|MT|NC|ND|NE|NH|"
    "NJ|NM|NV|NY|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VA|VT|WA|WI|WV|WY|PR|GU|VI|AS|MP"
)
"""The postal codes of US states and territories. `ID` (Idaho) counts only after a comma: `ID`
before five digits is far more often an identifier's label (`Payer ID 60054`)."""
_STATES_BARE = _STATES.replace("ID|", "")
_UPPER = "A-ZÀ-ÖØ-Þ\u0100-\u017f\u1e00-\u1eff"
_LOWER = "a-zß-öø-ÿ\u0100-\u017f\u1e00-\u1eff"
_NAME_WORD = rf"[{_UPPER}][{_LOWER}]*[{_UPPER}]?[{_LOWER}]+(?:['\u2019-][{_UPPER}]?[{_LOWER}]+)*"
"""A capitalised name word: `Khan`, `Nguyễn`, `O'Brien`, `McDonald`, `Mensah-Bonsu`, `Li`."""
_PARTICLE = r"(?:van|von|der|den|de|la|le|del|della|da|das|dos|du|di|st|y|al|el|bin|ibn)"
_NAME = (
    rf"(?:[A-Z]\.\s*)*{_NAME_WORD}(?:\s+(?:[A-Z]\.|{_PARTICLE}(?=\s)|{_NAME_WORD})){{0,3}}"
    rf"(?:,\s+{_NAME_WORD}(?:\s+{_NAME_WORD})?)?"
)
"""A name: initials, up to four words with particles between them, and a given name after a comma."""
_TITLE = r"(?i:mr|mrs|ms|miss|mx|dr|sr|sra|mme)"
_RELATIONS = (
    r"patient|pt|member|subscriber|guarantor|borrower|co-?signer|dependent|insured|beneficiary|daughter|"
    r"son|wife|husband|spouse|mother|father|mom|dad|sister|brother|grand(?:mother|father|son|daughter)|"
    r"aunt|uncle|niece|nephew|guardian|caregiver|parent|partner|fianc[ée]e?|widow(?:er)?|name\s+of|named|c/o"
)
_SENTENCE_START = r"(?:^|(?<=[.;:!?(\n]\s)|(?<=\n))"
_ROLE = rf"(?:{_TITLE}|(?:{_RELATIONS})|{_SENTENCE_START}(?=[A-Z])(?i:{_RELATIONS}))"
"""A title anywhere; a role or relation in lower case, or capitalised where a sentence starts
(`Guarantor Dmitri Volkov`), never mid-sentence, where it is a title's word (`Advance Beneficiary
Notice`, `Member Services`)."""
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
    ("date", re.compile(rf"\b\d{{1,2}}-{_MONTH}-(?:\d{{4}}|\d{{2}})\b", re.I)),
    ("date", re.compile(r"(?<![\w.])(?:\d{1,2}\.\d{1,2}\.\d{4}|\d{4}[/.]\d{1,2}[/.]\d{1,2})(?![\w.])")),
    (
        "member_id",  # Medicare Beneficiary Identifier, with or without its dashes
        re.compile(
            rf"\b[1-9]{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?"
            rf"{_MBI_ALPHA}{{2}}\d{{2}}\b"
        ),
    ),
    ("member_id", re.compile(r"\b[A-Z]{2,4}\d{6,12}[A-Z]?\b")),  # commercial payers: prefix + digits
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
            rf"\b\d{{1,6}}\s+(?:[A-Z0-9][A-Za-z0-9'.-]*\s+){{1,4}}(?i:{_STREET})\b\.?"
            r"(?:,?\s+(?i:Apt|Apartment|Suite|Ste|Unit)\.?\s*[A-Za-z0-9-]+|\s*#\s*[A-Za-z0-9-]+)?"
        ),
    ),
    ("address", re.compile(r"\bP\.?\s?O\.?\s+Box\s+\d+\b", re.I)),
    (
        "zip",
        re.compile(
            rf"(?:,\s*(?:{_STATES})|\b(?:{_STATES_BARE})|\b(?i:ZIP(?:\s+code)?:?))\s+(?P<v>\d{{5}}(?:-\d{{4}})?)\b"
        ),
    ),
    (
        "city",  # the words before a state's code and a ZIP code
        re.compile(
            rf"(?P<v>\b[A-Z][a-z]+(?:\s[A-Z][a-z]+){{0,2}})(?:,\s*(?:{_STATES})|\s+(?:{_STATES_BARE}))"
            r"\s+\d{5}(?:-\d{4})?\b"
        ),
    ),
    (
        "name",  # a capitalised name after a title, a role or a relation (and a title after a role)
        re.compile(rf"\b{_ROLE}\b[.:,]?\s+\(?(?:{_TITLE}\.?\s+)?(?P<v>{_NAME})"),
    ),
    (
        "age",
        re.compile(r"\b(?:9\d|1[01]\d)[- ](?:years?|yrs?)[- ]old\b|\b(?:9\d|1[01]\d)\s?(?:y/o|yo)\b", re.I),
    ),
    ("age", re.compile(r"\b(?:age[ds]?|aged)\W{1,3}(?P<v>9\d|1[01]\d)\b", re.I)),
    ("npi", re.compile(r"\bNPI\W{0,3}(?P<v>[12]\d{9})\b", re.I)),
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
