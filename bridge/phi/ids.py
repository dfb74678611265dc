"""Identifiers a label gives away: a nation's id by the name its people call it (`Aadhaar`,
`kennitala`, `CURP`, `NI no`), a device's serial, a vehicle's plate, a vessel's number, a bank
account, a court case, a user name or a social handle; and an id read out one digit at a time.

Pure. A label is only a cue: the value after it must look like an id (a digit in it; letters in
capitals beside digit groups), so `PAN card on file` or `serial killer` keep their words. Each
pattern sits behind a cheap gate, a word it cannot match without.
"""

from __future__ import annotations

import re

from bridge.phi.checksums import find_checked_spans
from bridge.phi.names import lexicon

_NATIONAL_LABELS = (
    # the Americas
    r"SIN|NAS|RAMQ|OHIP|MSP|PHN|health\s+card|carte\s+soleil|CURP|RFC|CPF|CNPJ|CNS|RG|cédula|cedula|"
    r"RUT|RUN|CUIL|CUIT|DNI|DUI|NIT|ITIN|A-number|A#|alien\s+(?:number|no|#)|USCIS|green\s+card|EAD|"
    r"DoD\s+ID|EDIPI|military\s+ID|tribal\s+ID|"
    # Europe
    r"NI\s+(?:no|number|#)|NINO|national\s+insurance|NHS|CHI|PPSN|PPS\s+(?:no|number)|BSN|NISS|"
    r"rijksregister(?:nummer)?|INSEE|NIR|sociale|carte\s+vitale|NIE|NIF|NSS|"
    r"codice\s+fiscale|tessera\s+sanitaria|Steuer-?ID|Steueridentifikationsnummer|"
    r"Versicherten(?:nummer|-?nr)|KVNR|Sozialversicherungsnummer|SVNR|AHV|AVS|PESEL|NIP|"
    r"rodné\s+číslo|rodne\s+cislo|EGN|JMBG|OIB|AMKA|CNP|isikukood|asmens\s+kodas|personas\s+kods|"
    r"henkilötunnus|henkilotunnus|HETU|personnummer|fødselsnummer|fodselsnummer|personal\s+(?:code|number)|CPR|"
    r"kennitala|TC\s+kimlik|kimlik(?:\s+no)?|"
    # Africa, the Middle East, Asia and Oceania
    r"SA\s+ID|BVN|NIN|NIDA|Huduma|KRA\s+PIN|Ghana\s+card|Omang|teudat\s+zehut|Emirates\s+ID|Iqama|"
    r"civil\s+ID|CNIC|NICOP|NRIC|FIN|MyKad|NIK|KTP|PhilSys|PhilHealth|SSS|UMID|Aadhaar|Aadhar|UID|PAN|"
    r"UAN|voter\s+ID|EPIC|HKID|resident\s+(?:identity\s+)?(?:ID|card|number)|MyNumber|RRN|"
    r"resident\s+registration|IRD|TFN|NHI|Medicare\s+card|IHI|"
    # anywhere
    r"national\s+(?:id(?:entity)?|identification|registration)(?:\s+card)?|identity\s+card|"
    r"citizen\s+(?:ID|number)|tax\s+(?:file|identification)\s+number|passport"
)
_VALUE = (
    r"(?=[A-Z0-9 ()/.-]*\d)"
    r"(?:[A-Z]{1,5}[ /-]?){0,2}\d[\dA-Z]*(?:(?:[ ./-]|\s\/\s)(?:\d[\dA-Z]*|[A-Z]{1,3}\d[\dA-Z]*))*(?:\s?\(\w\))?"
    r"(?:\s[A-D]\b)?"
)
"""An id's value: digit groups joined by spaces, dots, slashes or dashes, letters in capitals before
them or inside them, a check character in brackets (`(6)`) or alone at the end (`… 56 C`)."""


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (its `|` outside brackets)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        depth += (ch == "(") - (ch == ")")
        if ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


_ACRONYMS = "|".join(w for w in _alternatives(_NATIONAL_LABELS) if not any(c.islower() for c in w))
"""Labels in capitals match only in capitals (`PAN`, not `pan`); the others in any case."""
_WORDS = "|".join(w for w in _alternatives(_NATIONAL_LABELS) if any(c.islower() for c in w))
_CONNECTOR = r"(?:\s*(?:no\.?|num(?:ber)?|#|nr\.?|id)(?![A-Za-z]))?\s*(?:(?:is|was|of)\s+|[:#=]\s*|-\s+)?"
_NATIONAL = re.compile(
    rf"(?<![\w#])(?:{_ACRONYMS}|(?i:{_WORDS}|(?:insurance|member|subscriber)\s+id|policy))(?![A-Za-z])"
    rf"(?:\s+(?![A-Z]{{1,5}}[ /-]?\d)[A-Za-z]+(?=[\s:])){{0,3}}{_CONNECTOR}(?P<v>(?=(?:[A-Z ()/.-]*\d){{4}}){_VALUE})"
)

_DEVICE_LABELS = (
    r"S/?N|serial(?:\s+(?:no|number|#))?|transmitter|sensor|receiver|pump|CGM|monitor|implant|"
    r"pacemaker|hearing[- ]aid|device|IMEI|MEID|ESN|UDI|MAC|HIN|hull(?:\s+ID)?|"
    r"(?:USCG\s+)?(?:doc(?:umentation)?|official)\s+(?:no|number|#)?|USCG\s+doc"
)
_DEVICE = re.compile(
    rf"\b(?i:{_DEVICE_LABELS})(?![A-Za-z]){_CONNECTOR}"
    r"(?P<v>(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]{5,})[A-Z0-9]+(?:[-:][A-Z0-9]+)*)(?![\w-])"
)
"""A device's serial (`transmitter 8GM2K-0441`, `CGM is G7X91ABC`), a vessel's hull or documentation
number: a code of five or more capitals and digits, a digit in it."""

_PLATE = re.compile(
    r"\b(?i:(?:licen[cs]e\s+)?plates?|tag|registration|reg\.?|rego|kenteken|matr[íi]cula|targa|"
    r"Kennzeichen|immatriculation|placa)(?![A-Za-z])(?:\s*(?:no\.?|number|#))?\s*(?:is\s+|[:#=]\s*)?"
    r"(?P<v>(?:[A-Z]{2}\s+)?(?=[A-Z0-9 -]*\d)[A-Z0-9]{1,4}(?:[ -][A-Z0-9]{1,4}){0,2})(?![\w-])"
)
"""A vehicle's plate after its label, with a state's or country's code before it (`plate TX KLM 204`)."""

_BANK = re.compile(
    r"\b(?i:checking|savings|chequing|brokerage|account|acct|a/c)"
    r"(?![A-Za-z])(?:\s+(?i:no\.?|number|#|ending(?:\s+in)?))?\s*(?:(?i:is)\s+|[:#=]\s*)?"
    r"(?P<v>\d[\d -]{4,}\d)(?![\w.,]\d|\w)"
)
"""A bank or brokerage account's number after its kind (`savings 00412 883 19`)."""

_CASE = re.compile(
    r"\b(?i:case|cause|docket|file|index|claim\s+of)\s*(?i:no\.?|number|#)?\s*[:#]?\s*"
    r"(?P<v>(?:19|20)\d{2}[ -]?[A-Z]{1,4}[ -]?\d{3,8})\b"
)
"""A court case's number with its year and court's letters (`2024 CH 01288`, `2023-PR-0041`)."""

_HANDLE_CUE = re.compile(
    r"(?<![\w.])(?i:user\s*name|user\s*id|log-?in|handle|screen\s*name|alias|gamertag|"
    r"portal\s+(?:acct|account|user|login|id)|(?:acct|account)\s+(?:name|login)|"
    r"WeChat(?:\s+ID)?|WhatsApp\s+ID|Telegram|Signal|Skype|Snapchat|Snap|Discord|Kik|LINE\s+ID|"
    r"Instagram|IG|Insta|TikTok|Twitter|Threads|Venmo|Cash\s?App|PayPal\.me|Zelle\s+tag|Reddit|"
    r"Facebook|FB|LinkedIn|GitHub|(?P<weak>(?:msg|message|messages|dm|DM)\s+from))(?![A-Za-z])"
    r"(?:\s+on\s+(?:the\s+|your\s+|our\s+)?[a-z]+)?\s*(?:is\s+|[:=]\s*)?"
    r"(?P<v>@?[A-Za-z0-9][A-Za-z0-9._-]{2,}[A-Za-z0-9_])(?![\w@-])"
)
_AT_HANDLE = re.compile(
    r"(?<![\w.@])@(?=[A-Za-z0-9._-]*[A-Za-z])[A-Za-z0-9_][A-Za-z0-9._-]{1,38}[A-Za-z0-9_](?![\w@-])"
)
"""A social handle: `@` and a name, not an e-mail's host (`@example.org` has a word before it)."""

_ONE_BY_ONE = re.compile(r"(?<![\w.,])\d(?: \d){6,}(?![\w.,])")
"""An id read out one digit at a time (`4 4 0 1 9 2 7`): seven digits or more."""


def _stems(labels: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Each label's literal start: in capitals (matched as written) and in lower case."""
    starts = [re.match(r"[^\\()\[?*+{|]+", alt) for alt in _alternatives(labels)]
    words = {m.group().split()[0] for m in starts if m is not None}
    caps = tuple(sorted(w for w in words if not any(c.islower() for c in w)))
    return caps, tuple(sorted({w.lower() for w in words if any(c.islower() for c in w)}))


_LABEL_CAPS, _LABEL_WORDS = _stems(_NATIONAL_LABELS)
_NATIONAL_STEMS = (_LABEL_CAPS, (*_LABEL_WORDS, "insurance", "member", "subscriber", "policy"))
"""The national labels' stems and those of the member-id labels `_NATIONAL` adds."""

LABELLED: tuple[tuple[str, tuple[tuple[str, ...], tuple[str, ...]], re.Pattern[str]], ...] = (
    ("national_id", _NATIONAL_STEMS, _NATIONAL),
    (
        "device_serial",
        ((), ("s/n", "sn", "serial", "transmit", "sensor", "receiver", "pump", "cgm", "monitor", "implant",
              "pacemaker", "hearing", "device", "imei", "meid", "esn", "udi", "mac", "hin", "hull", "doc",
              "official")),
        _DEVICE,
    ),
    ("plate", ((), ("plate", "tag", "reg", "kenteken", "matr", "targa", "kennzeichen", "immatric", "placa")), _PLATE),
    ("account", ((), ("checking", "savings", "chequing", "brokerage", "acc", "a/c")), _BANK),
    ("case_number", ((), ("case", "cause", "docket", "file", "index", "claim")), _CASE),
    ("username", (("@",), ()), _AT_HANDLE),
    ("account", (("0 ", "1 ", "2 ", "3 ", "4 ", "5 ", "6 ", "7 ", "8 ", "9 "), ()), _ONE_BY_ONE),
)  # fmt: skip
"""(class, (stems in capitals, stems in lower case), pattern): a pattern tried only where one of its
labels' stems is found in the text (in capitals as written, the others in the lower-cased text)."""


def find_id_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) for each id a label gives away, each handle, each id read out digit by
    digit, and each id whose check digits pass (`bridge.phi.checksums`)."""
    spans: list[tuple[int, int, str]] = []
    low = text.lower()
    for kind, (caps, lower), pattern in LABELLED:
        if not any(stem in text for stem in caps) and not any(stem in low for stem in lower):
            continue
        for match in pattern.finditer(text):
            start, end = match.span("v" if "v" in pattern.groupindex else 0)
            if end > start:
                spans.append((start, end, kind))
    return spans + _handles(text, low) + find_checked_spans(text)


_HANDLE_STEMS = (
    "user", "log", "handle", "screen", "alias", "gamer", "portal", "acc", "wechat", "whatsapp", "telegram",
    "signal", "skype", "snap", "discord", "kik", "line", "insta", "ig", "tiktok", "twitter", "threads",
    "venmo", "cash", "paypal", "zelle", "reddit", "facebook", "fb", "linkedin", "github", "msg", "message",
    "dm",
)  # fmt: skip


def _handles(text: str, low: str) -> list[tuple[int, int, str]]:
    """User names after their cue: a plain word only where it is no common word (`login
    locked` keeps `locked`), and after `message from` only a name with a digit, `_` or `.` in it."""
    if not any(stem in low for stem in _HANDLE_STEMS):
        return []
    lex = lexicon()
    spans: list[tuple[int, int, str]] = []
    for match in _HANDLE_CUE.finditer(text):
        value = match.group("v")
        plain = value.isalpha()
        if plain and match.group("weak") is not None:
            continue
        if plain and lex.kind(value.lower()) == "common":
            continue
        spans.append((*match.span("v"), "username"))
    return spans
